package kube

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// LiqoManagedByValue is the managed-by label value Liqo puts on the RBAC it
// creates for a consumer (§6.5); our bindings carry it too so that Liqo and
// `liqoctl unauthenticate` recognise them.
const LiqoManagedByValue = "liqo"

// TenantClusterRoles are the ClusterRoles bound for every consumer (§6.5).
type TenantClusterRoles struct {
	ControlPlane []string // bound by a RoleBinding in the tenant namespace
	ClusterWide  []string // bound by a ClusterRoleBinding to the consumer's group
}

// TenantRoles finds, by label, the ClusterRoles to bind for consumers. Like
// Liqo it fails when either kind is missing: the cluster is not set up.
func (c *Cluster) TenantRoles(ctx context.Context) (*TenantClusterRoles, error) {
	cp, err := c.clusterRoleNames(ctx, RemoteControlPlaneRoleSelector)
	if err != nil {
		return nil, err
	}
	cw, err := c.clusterRoleNames(ctx, RemoteClusterWideRoleSelector)
	if err != nil {
		return nil, err
	}
	return &TenantClusterRoles{ControlPlane: cp, ClusterWide: cw}, nil
}

func (c *Cluster) clusterRoleNames(ctx context.Context, selector string) ([]string, error) {
	// ResourceVersion "0" reads the API server's cache as it is: a
	// consistent list of objects that hardly ever change waits for the
	// cache to catch up with the latest write anywhere (~100ms), on every
	// Tenant reconcile.
	list, err := c.Kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: "0"})
	if err != nil {
		return nil, fmt.Errorf("unable to get ClusterRoles to bind on tenant namespace: %w", err)
	}
	if len(list.Items) == 0 {
		return nil, fmt.Errorf("unable to get ClusterRoles to bind on tenant namespace: required ClusterRole resources with %s not found: run `liqo-auth-tui init` on this cluster", selector)
	}
	names := make([]string, len(list.Items))
	for i := range list.Items {
		names[i] = list.Items[i].Name
	}
	return names, nil
}

// RoleBindingName is the RoleBinding of a remote-controlplane ClusterRole in
// a tenant namespace (liqo-binding-<clusterRole>).
func RoleBindingName(clusterRole string) string { return ClusterRoleBindingPrefix + clusterRole }

// ClusterRoleBindingName is the ClusterRoleBinding of a clusterwide
// ClusterRole for a consumer (liqo-binding-<clusterRole>-<consumerID>).
func ClusterRoleBindingName(clusterRole, consumerID string) string {
	return ClusterRoleBindingPrefix + clusterRole + "-" + consumerID
}

func tenantRBACLabels(consumerID string) map[string]string {
	return map[string]string{ManagedByLabel: LiqoManagedByValue, RemoteClusterIDLabel: consumerID}
}

func roleRef(clusterRole string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole}
}

// BindTenantNamespace gives the consumer's control-plane user (its cluster
// ID) the remote-controlplane ClusterRoles inside the tenant namespace: one
// RoleBinding each, owned by the Tenant so that they go away with it. Like
// Liqo, an existing RoleBinding is left unchanged.
func (c *Cluster) BindTenantNamespace(ctx context.Context, t *authv1beta1.Tenant, tenantNamespace string, clusterRoles []string) ([]Change, error) {
	return c.BindTenantNamespaceKnown(ctx, t, tenantNamespace, clusterRoles, nil)
}

// BindTenantNamespaceKnown is BindTenantNamespace for a caller that keeps
// the RoleBindings in an informer's cache: exists tells whether one is
// already there (it is then left unchanged, like Liqo does), and a missing
// one is created without a Get first (AlreadyExists counts as there). nil
// exists asks the API server.
func (c *Cluster) BindTenantNamespaceKnown(ctx context.Context, t *authv1beta1.Tenant, tenantNamespace string, clusterRoles []string,
	exists func(namespace, name string) bool) ([]Change, error) {
	consumerID := t.Spec.ClusterID
	owner := metav1.NewControllerRef(t, authv1beta1.GroupVersion.WithKind(authv1beta1.TenantKind))
	bindings := c.Kube.RbacV1().RoleBindings(tenantNamespace)
	var changes []Change
	for _, role := range clusterRoles {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: RoleBindingName(role), Namespace: tenantNamespace,
				Labels: tenantRBACLabels(consumerID), OwnerReferences: []metav1.OwnerReference{*owner}},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: consumerID}},
			RoleRef:  roleRef(role),
		}
		var known func(string) bool
		if exists != nil {
			known = func(name string) bool { return exists(tenantNamespace, name) }
		}
		ch, err := createIfMissing(ctx, bindings.Get, bindings.Create, known, rb, "RoleBinding "+tenantNamespace+"/"+rb.Name)
		if err != nil {
			return changes, err
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

// BindTenantClusterWide binds the clusterwide ClusterRoles to the group named
// after the consumer (the ResourceSlice certificates are in it).
func (c *Cluster) BindTenantClusterWide(ctx context.Context, consumerID string, clusterRoles []string) ([]Change, error) {
	return c.BindTenantClusterWideKnown(ctx, consumerID, clusterRoles, nil)
}

// BindTenantClusterWideKnown is BindTenantClusterWide with the existence
// check of BindTenantNamespaceKnown.
func (c *Cluster) BindTenantClusterWideKnown(ctx context.Context, consumerID string, clusterRoles []string, exists func(name string) bool) ([]Change, error) {
	bindings := c.Kube.RbacV1().ClusterRoleBindings()
	var changes []Change
	for _, role := range clusterRoles {
		crb := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleBindingName(role, consumerID), Labels: tenantRBACLabels(consumerID)},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: consumerID}},
			RoleRef:    roleRef(role),
		}
		ch, err := createIfMissing(ctx, bindings.Get, bindings.Create, exists, crb, "ClusterRoleBinding "+crb.Name)
		if err != nil {
			return changes, err
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

// UnbindTenantClusterWide deletes the consumer's ClusterRoleBindings: those
// of the given ClusterRoles and of Liqo's default one, so that a Tenant can
// be cleaned up even when the ClusterRoles were removed.
func (c *Cluster) UnbindTenantClusterWide(ctx context.Context, consumerID string, clusterRoles []string) ([]Change, error) {
	bindings := c.Kube.RbacV1().ClusterRoleBindings()
	var changes []Change
	for _, role := range withDefault(clusterRoles, RemoteClusterWideClusterRole) {
		name := ClusterRoleBindingName(role, consumerID)
		ch, err := deleteIfPresent(ctx, bindings.Delete, "ClusterRoleBinding "+name, name)
		if err != nil {
			return changes, err
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

// UnbindTenantNamespace deletes the consumer's RoleBindings in the tenant
// namespace (used when a Tenant is drained; on deletion the owner reference
// takes care of them).
func (c *Cluster) UnbindTenantNamespace(ctx context.Context, tenantNamespace string, clusterRoles []string) ([]Change, error) {
	bindings := c.Kube.RbacV1().RoleBindings(tenantNamespace)
	var changes []Change
	for _, role := range withDefault(clusterRoles, RemoteControlPlaneClusterRole) {
		name := RoleBindingName(role)
		ch, err := deleteIfPresent(ctx, bindings.Delete, "RoleBinding "+tenantNamespace+"/"+name, name)
		if err != nil {
			return changes, err
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

func withDefault(names []string, def string) []string {
	for _, n := range names {
		if n == def {
			return names
		}
	}
	return append(append([]string(nil), names...), def)
}

func createIfMissing[T metav1.Object](ctx context.Context,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	create func(context.Context, T, metav1.CreateOptions) (T, error), exists func(name string) bool, obj T, what string) (Change, error) {
	ch := Change{Object: what, Action: Unchanged}
	if exists != nil {
		if exists(obj.GetName()) {
			return ch, nil
		}
	} else if _, err := get(ctx, obj.GetName(), metav1.GetOptions{}); err == nil {
		return ch, nil
	} else if !IsNotFound(err) {
		return ch, fmt.Errorf("reading %s: %w", what, err)
	}
	if _, err := create(ctx, obj, metav1.CreateOptions{}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return ch, nil
		}
		return ch, fmt.Errorf("creating %s: %w", what, err)
	}
	ch.Action = Created
	return ch, nil
}

func deleteIfPresent(ctx context.Context, del func(context.Context, string, metav1.DeleteOptions) error, what, name string) (Change, error) {
	ch := Change{Object: what, Action: Deleted}
	if err := del(ctx, name, metav1.DeleteOptions{}); err != nil {
		if IsNotFound(err) {
			ch.Action = Unchanged
			return ch, nil
		}
		return ch, fmt.Errorf("deleting %s: %w", what, err)
	}
	return ch, nil
}

// UnbindTenant deletes all the RBAC of §6.5 of a consumer (what draining a
// Tenant does). roles may be nil: Liqo's default ClusterRoles are assumed.
func (c *Cluster) UnbindTenant(ctx context.Context, consumerID, tenantNamespace string, roles *TenantClusterRoles) ([]Change, error) {
	if roles == nil {
		roles = &TenantClusterRoles{}
	}
	changes, err := c.UnbindTenantClusterWide(ctx, consumerID, roles.ClusterWide)
	if err != nil || tenantNamespace == "" {
		return changes, err
	}
	ns, err := c.UnbindTenantNamespace(ctx, tenantNamespace, roles.ControlPlane)
	return append(changes, ns...), err
}

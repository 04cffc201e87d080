package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The plain reads, watches, writes and deletes of Liqo's authentication
// objects that flows needs, so that flows calls no Liqo client itself
// (handshake_* and lifecycle_* hold those with more to them).

// TenantsListWatch is a list/watch of c's Tenants in namespace ("" = all),
// narrowed by tweak (ByName, BySelector): what a wait on a Tenant follows.
func (c *Cluster) TenantsListWatch(namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	tenants := c.Liqo.Tenants(namespace)
	return ListWatch(tenants.List, tenants.Watch, tweak)
}

// IdentitiesListWatch is a list/watch of c's Identities in namespace ("" =
// all), narrowed by tweak.
func (c *Cluster) IdentitiesListWatch(namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	identities := c.Liqo.Identities(namespace)
	return ListWatch(identities.List, identities.Watch, tweak)
}

// ResourceSlicesListWatch is a list/watch of c's ResourceSlices in
// namespace ("" = all), narrowed by tweak.
func (c *Cluster) ResourceSlicesListWatch(namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	slices := c.Liqo.ResourceSlices(namespace)
	return ListWatch(slices.List, slices.Watch, tweak)
}

// RenewsListWatch is a list/watch of c's Renews in namespace ("" = all),
// narrowed by tweak.
func (c *Cluster) RenewsListWatch(namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	renews := c.Liqo.Renews(namespace)
	return ListWatch(renews.List, renews.Watch, tweak)
}

// Tenant reads one of c's Tenants.
func (c *Cluster) Tenant(ctx context.Context, namespace, name string) (*authv1beta1.Tenant, error) {
	return c.Liqo.Tenants(namespace).Get(ctx, name, metav1.GetOptions{})
}

// UpdateTenant writes t as read (a Conflict error when it changed since).
func (c *Cluster) UpdateTenant(ctx context.Context, t *authv1beta1.Tenant) (*authv1beta1.Tenant, error) {
	return c.Liqo.Tenants(t.Namespace).Update(ctx, t, metav1.UpdateOptions{})
}

// UpdateTenantStatus writes t's status as read (a Conflict error when it
// changed since).
func (c *Cluster) UpdateTenantStatus(ctx context.Context, t *authv1beta1.Tenant) (*authv1beta1.Tenant, error) {
	return c.Liqo.Tenants(t.Namespace).UpdateStatus(ctx, t, metav1.UpdateOptions{})
}

// MergePatchReplicated merge-patches one of c's objects of kind
// ResourceSlice or Renew (the objects the crd-replicator copies).
func (c *Cluster) MergePatchReplicated(ctx context.Context, kind, namespace, name string, patch []byte) error {
	var err error
	switch kind {
	case authv1beta1.ResourceSliceKind:
		_, err = c.Liqo.ResourceSlices(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	case authv1beta1.RenewKind:
		_, err = c.Liqo.Renews(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	default:
		err = fmt.Errorf("%s is not replicated", kind)
	}
	return err
}

// DeleteTenant deletes one of c's Tenants (a NotFound error when it is gone).
func (c *Cluster) DeleteTenant(ctx context.Context, namespace, name string) error {
	return c.Liqo.Tenants(namespace).Delete(ctx, name, metav1.DeleteOptions{})
}

// Identity reads one of c's Identities.
func (c *Cluster) Identity(ctx context.Context, namespace, name string) (*authv1beta1.Identity, error) {
	return c.Liqo.Identities(namespace).Get(ctx, name, metav1.GetOptions{})
}

// DeleteIdentityInForeground deletes one of c's Identities in the
// foreground: it goes only once what it owns (its kubeconfig Secret, its
// Renew) is gone. A NotFound error when it is gone.
func (c *Cluster) DeleteIdentityInForeground(ctx context.Context, namespace, name string) error {
	fg := metav1.DeletePropagationForeground
	return c.Liqo.Identities(namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &fg})
}

// ResourceSliceIdentities lists the Identities of every namespace made for
// ResourceSlices (labelled with ResourceSliceNameLabel).
func (c *Cluster) ResourceSliceIdentities(ctx context.Context) ([]authv1beta1.Identity, error) {
	list, err := c.Liqo.Identities("").List(ctx, metav1.ListOptions{LabelSelector: ResourceSliceNameLabel})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// ResourceSlice reads one of c's ResourceSlices.
func (c *Cluster) ResourceSlice(ctx context.Context, namespace, name string) (*authv1beta1.ResourceSlice, error) {
	return c.Liqo.ResourceSlices(namespace).Get(ctx, name, metav1.GetOptions{})
}

// CreateResourceSlice creates rs in its namespace.
func (c *Cluster) CreateResourceSlice(ctx context.Context, rs *authv1beta1.ResourceSlice) (*authv1beta1.ResourceSlice, error) {
	return c.Liqo.ResourceSlices(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
}

// UpdateResourceSlice writes rs (its resourceVersion guards against a
// change made meanwhile: a Conflict error then).
func (c *Cluster) UpdateResourceSlice(ctx context.Context, rs *authv1beta1.ResourceSlice) (*authv1beta1.ResourceSlice, error) {
	return c.Liqo.ResourceSlices(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
}

// DeleteResourceSlice deletes the ResourceSlice rs, not another made since
// under its name (a Conflict error then; a NotFound one when gone).
func (c *Cluster) DeleteResourceSlice(ctx context.Context, rs *authv1beta1.ResourceSlice) error {
	return c.Liqo.ResourceSlices(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &rs.UID}})
}

// ReplicatingResourceSlices lists a consumer's ResourceSlices of every
// namespace labelled to be replicated to providerID (ReplicationSelector),
// those being deleted included.
func (c *Cluster) ReplicatingResourceSlices(ctx context.Context, providerID string) ([]authv1beta1.ResourceSlice, error) {
	list, err := c.Liqo.ResourceSlices("").List(ctx, metav1.ListOptions{LabelSelector: ReplicationSelector(providerID)})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// ReplicatingRenews lists a consumer's Renews of every namespace labelled to
// be replicated to providerID (ReplicationSelector).
func (c *Cluster) ReplicatingRenews(ctx context.Context, providerID string) ([]authv1beta1.Renew, error) {
	list, err := c.Liqo.Renews("").List(ctx, metav1.ListOptions{LabelSelector: ReplicationSelector(providerID)})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// DeleteRenew deletes one of c's Renews (a NotFound error when it is gone).
func (c *Cluster) DeleteRenew(ctx context.Context, namespace, name string) error {
	return c.Liqo.Renews(namespace).Delete(ctx, name, metav1.DeleteOptions{})
}

// TenantsIn lists c's Tenants in namespace ("" = all).
func (c *Cluster) TenantsIn(ctx context.Context, namespace string) ([]authv1beta1.Tenant, error) {
	list, err := c.Liqo.Tenants(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// IdentitiesIn lists c's Identities in namespace ("" = all).
func (c *Cluster) IdentitiesIn(ctx context.Context, namespace string) ([]authv1beta1.Identity, error) {
	list, err := c.Liqo.Identities(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// ResourceSlicesIn lists c's ResourceSlices in namespace ("" = all), the
// provider's copies included.
func (c *Cluster) ResourceSlicesIn(ctx context.Context, namespace string) ([]authv1beta1.ResourceSlice, error) {
	list, err := c.Liqo.ResourceSlices(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// RenewsIn lists c's Renews in namespace ("" = all).
func (c *Cluster) RenewsIn(ctx context.Context, namespace string) ([]authv1beta1.Renew, error) {
	list, err := c.Liqo.Renews(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

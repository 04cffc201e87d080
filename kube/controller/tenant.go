package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// tenantReconciler accepts the Tenants consumers send to this provider
// (§6.2, Liqo's `tenant` controller): it verifies the handshake, has the
// CSR signed, fills status.authParams and binds the consumer's RBAC.
type tenantReconciler struct {
	c          *kube.Cluster
	o          Options
	adv        *advertiser
	events     *events
	dyn        dynamic.Interface
	tenants    cache.Indexer
	namespaces tenantNamespaces
	nonces     cache.Indexer    // Secrets labelled liqo.io/nonce, indexed byRemoteID
	caches     *tenantCaches    // nil: every lookup is live
	now        func() time.Time // nil = time.Now
}

// sync reconciles one Tenant. A pass that finds everything in place asks
// the API server nothing: what it reads comes from informers, and what it
// wrote itself is remembered until they show it.
func (r *tenantReconciler) sync(ctx context.Context, key string) (time.Duration, error) {
	t, exists, err := r.tenant(key)
	if err != nil || !exists {
		return 0, err
	}

	// Step 0, the setup check; deletion still goes ahead without the roles.
	roles, rolesErr := r.tenantRoles(ctx)
	if t.DeletionTimestamp != nil {
		return 0, r.finalize(ctx, t, roles)
	}
	if rolesErr != nil {
		return 0, rolesErr
	}
	if !slices.Contains(t.Finalizers, kube.TenantFinalizer) {
		// Liqo ends the pass here and lets the update bring the Tenant
		// back; going on with the updated object saves a queue pass (the
		// order of the steps is the same).
		t.Finalizers = append(t.Finalizers, kube.TenantFinalizer)
		updated, err := r.c.Liqo.Tenants(t.Namespace).Update(ctx, t, metav1.UpdateOptions{})
		if err != nil {
			return 0, err
		}
		r.wrote(updated)
		t = updated.DeepCopy()
	}
	if done, err := r.applyCondition(ctx, t, roles); done || err != nil {
		return 0, err
	}
	if err := r.checkPlacement(ctx, t); err != nil {
		return 0, r.reportHandshake(ctx, t, err)
	}
	handshake := t.Spec.AuthzPolicy != authv1beta1.TolerateNoHandshake
	if handshake {
		if err := r.verifyHandshake(ctx, t); err != nil {
			return 0, r.reportHandshake(ctx, t, err)
		}
	}
	ns, err := r.namespaces.ensure(ctx, t.Spec.ClusterID)
	if err != nil {
		r.events.warning(ctx, t, ReasonTenantNamespaceCreationFailed, err.Error())
		return 0, err
	}

	// From here on the status is written even when a later step fails.
	status := t.Status.DeepCopy()
	status.TenantNamespace = ns.Name
	var requeueAfter time.Duration
	var renewed bool
	var errs []error
	if handshake {
		requeueAfter, renewed, err = r.authParams(ctx, t, status)
		if err == nil {
			var changes []kube.Change
			changes, err = r.c.BindTenantNamespaceKnown(ctx, t, ns.Name, roles.ControlPlane, r.roleBindingExists())
			r.rememberBindings("rb", ns.Name, changes, roleBindingNames(roles.ControlPlane))
			if err != nil {
				r.events.warning(ctx, t, ReasonClusterRolesBindingFailed, err.Error())
			}
		}
		errs = append(errs, err)
	}
	// Done even without handshake: the admin hands out credentials then.
	// Last, not beside the CSR's signing: every request the API server
	// authorizes walks all ClusterRoleBindings, so in a burst of Tenants a
	// binding made early makes the rest of the burst dearer.
	changes, err := r.c.BindTenantClusterWideKnown(ctx, t.Spec.ClusterID, roles.ClusterWide, r.clusterRoleBindingExists())
	r.rememberBindings("crb", "", changes, clusterRoleBindingNames(roles.ClusterWide, t.Spec.ClusterID))
	if err != nil {
		r.events.warning(ctx, t, ReasonClusterRolesClusterWideBindingFailed, err.Error())
		errs = append(errs, err)
	}
	if err := r.updateStatus(ctx, t, status, renewed); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return requeueAfter, nil
}

func roleBindingNames(roles []string) []string {
	out := make([]string, len(roles))
	for i, role := range roles {
		out[i] = kube.RoleBindingName(role)
	}
	return out
}

func clusterRoleBindingNames(roles []string, consumerID string) []string {
	out := make([]string, len(roles))
	for i, role := range roles {
		out[i] = kube.ClusterRoleBindingName(role, consumerID)
	}
	return out
}

// finalize runs on deletion (FinalizeTenant), forgetting the bindings it
// removed from the caches.
func (r *tenantReconciler) finalize(ctx context.Context, t *authv1beta1.Tenant, roles *kube.TenantClusterRoles) error {
	if !slices.Contains(t.Finalizers, kube.TenantFinalizer) {
		return nil
	}
	err := FinalizeTenant(ctx, r.c, t, roles)
	r.forgetBindings(t.Spec.ClusterID, t.Namespace, roles)
	if err != nil {
		return err
	}
	observeCertificate(t.Spec.ClusterID, time.Time{})
	klog.FromContext(ctx).Info("Tenant finalized", "tenant", klog.KObj(t), "cluster", t.Spec.ClusterID)
	return nil
}

// FinalizeTenant is the provider controller's cleanup of a deleted Tenant
// carrying kube.TenantFinalizer: it removes the consumer's cluster-wide
// bindings and, beyond Liqo (which leaves it to the garbage collector, up
// to a resync later), its tenant-namespace RoleBindings, so the consumer's
// rights end with the Tenant; then it removes the finalizer. roles are the
// ClusterRoles bound (nil: the default ones). Exported for the tool to do
// it itself when no controller runs on the provider.
func FinalizeTenant(ctx context.Context, c *kube.Cluster, t *authv1beta1.Tenant, roles *kube.TenantClusterRoles) error {
	if !slices.Contains(t.Finalizers, kube.TenantFinalizer) {
		return nil
	}
	if roles == nil {
		roles = &kube.TenantClusterRoles{ControlPlane: []string{kube.RemoteControlPlaneClusterRole}, ClusterWide: []string{kube.RemoteClusterWideClusterRole}}
	}
	if _, err := c.UnbindTenant(ctx, t.Spec.ClusterID, t.Namespace, roles); err != nil {
		return err
	}
	t = t.DeepCopy()
	t.Finalizers = slices.DeleteFunc(t.Finalizers, func(f string) bool { return f == kube.TenantFinalizer })
	if _, err := c.Liqo.Tenants(t.Namespace).Update(ctx, t, metav1.UpdateOptions{}); err != nil && !kube.IsNotFound(err) {
		return err
	}
	return nil
}

// verifyHandshake checks the Tenant against this provider's nonce (§6.2
// step 5). The nonce is searched in every namespace, like Liqo does. The
// cached nonce answers the usual case; any doubt is settled live, so that
// a cache a moment behind never refuses a Tenant.
func (r *tenantReconciler) verifyHandshake(ctx context.Context, t *authv1beta1.Tenant) error {
	cached, err := byRemoteIDMatching(r.nonces, t.Spec.ClusterID, labels.Set{kube.RemoteClusterIDLabel: t.Spec.ClusterID, kube.NonceLabel: "true"})
	if err == nil && len(cached) == 1 {
		if s, ok := cached[0].(*corev1.Secret); ok {
			if nonce, err := kube.NonceOf(s); err == nil && kube.VerifyTenantHandshake(t, nonce) == nil {
				return nil
			}
		}
	}
	secret, err := r.c.NonceSecret(ctx, "", t.Spec.ClusterID)
	if err != nil {
		return &kube.HandshakeError{Reason: ReasonNonceNotFound, Err: fmt.Errorf("nonce of cluster %s not found: %w", t.Spec.ClusterID, err)}
	}
	nonce, err := kube.NonceOf(secret)
	if err != nil {
		return &kube.HandshakeError{Reason: ReasonNonceNotFound, Err: err}
	}
	return kube.VerifyTenantHandshake(t, nonce)
}

// reportHandshake turns a failed check into a Warning. A missing nonce is
// retried (the nonce may come); a Tenant that fails a check waits, without
// requeue, until it or the nonce changes.
func (r *tenantReconciler) reportHandshake(ctx context.Context, t *authv1beta1.Tenant, err error) error {
	var he *kube.HandshakeError
	if !errors.As(err, &he) {
		return err
	}
	r.events.warning(ctx, t, he.Reason, he.Error())
	if he.Reason == ReasonNonceNotFound {
		return err
	}
	klog.FromContext(ctx).Info("Tenant refused", "tenant", klog.KObj(t), "reason", he.Reason, "err", he.Error())
	return nil
}

// updateStatus writes the status when it changed (a no-op reconcile writes
// nothing) and says so with an Event.
func (r *tenantReconciler) updateStatus(ctx context.Context, t *authv1beta1.Tenant, status *authv1beta1.TenantStatus, renewed bool) error {
	if apiequality.Semantic.DeepEqual(&t.Status, status) {
		return nil
	}
	t.Status = *status
	updated, err := r.c.Liqo.Tenants(t.Namespace).UpdateStatus(ctx, t, metav1.UpdateOptions{})
	if err != nil {
		// A conflict only means our cache was behind: retried silently.
		if !apierrors.IsConflict(err) && !kube.IsNotFound(err) {
			r.events.warning(ctx, t, ReasonUpdateFailed, fmt.Sprintf("Unable to update the Tenant status: %v", err))
		}
		return err
	}
	r.wrote(updated)
	r.events.normal(ctx, t, ReasonReconciled, "Tenant reconciled")
	if renewed {
		r.events.normal(ctx, t, ReasonCertificateRenewed, "Certificate renewed")
	}
	return nil
}

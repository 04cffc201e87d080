package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	corelisters "k8s.io/client-go/listers/core/v1"
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
	events     *events
	dyn        dynamic.Interface
	tenants    cache.Indexer
	namespaces tenantNamespaces
	nonces     corelisters.SecretLister // Secrets labelled liqo.io/nonce
	now        func() time.Time         // nil = time.Now
}

func (r *tenantReconciler) sync(ctx context.Context, key string) (time.Duration, error) {
	obj, exists, err := r.tenants.GetByKey(key)
	if err != nil || !exists {
		return 0, err
	}
	t := obj.(*authv1beta1.Tenant).DeepCopy()

	// Step 0, the setup check; deletion still goes ahead without the roles.
	roles, rolesErr := r.c.TenantRoles(ctx)
	if t.DeletionTimestamp != nil {
		return 0, r.finalize(ctx, t, roles)
	}
	if rolesErr != nil {
		return 0, rolesErr
	}
	if !slices.Contains(t.Finalizers, kube.TenantFinalizer) {
		// The update wakes the next reconcile, on a cache that holds it.
		t.Finalizers = append(t.Finalizers, kube.TenantFinalizer)
		_, err := r.c.Liqo.Tenants(t.Namespace).Update(ctx, t, metav1.UpdateOptions{})
		return 0, err
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
			if _, err = r.c.BindTenantNamespace(ctx, t, ns.Name, roles.ControlPlane); err != nil {
				r.events.warning(ctx, t, ReasonClusterRolesBindingFailed, err.Error())
			}
		}
		errs = append(errs, err)
	}
	// Done even without handshake: the admin hands out credentials then.
	if _, err := r.c.BindTenantClusterWide(ctx, t.Spec.ClusterID, roles.ClusterWide); err != nil {
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

// finalize runs on deletion: it removes the cluster-wide binding and, beyond
// Liqo (which leaves it to the garbage collector, up to a resync later), the
// tenant-namespace RoleBinding, so the consumer's rights end with the Tenant.
// Then it removes the finalizer.
func (r *tenantReconciler) finalize(ctx context.Context, t *authv1beta1.Tenant, roles *kube.TenantClusterRoles) error {
	if !slices.Contains(t.Finalizers, kube.TenantFinalizer) {
		return nil
	}
	if roles == nil {
		roles = &kube.TenantClusterRoles{ControlPlane: []string{kube.RemoteControlPlaneClusterRole}, ClusterWide: []string{kube.RemoteClusterWideClusterRole}}
	}
	if _, err := r.c.UnbindTenant(ctx, t.Spec.ClusterID, t.Namespace, roles); err != nil {
		return err
	}
	t.Finalizers = slices.DeleteFunc(t.Finalizers, func(f string) bool { return f == kube.TenantFinalizer })
	if _, err := r.c.Liqo.Tenants(t.Namespace).Update(ctx, t, metav1.UpdateOptions{}); err != nil && !kube.IsNotFound(err) {
		return err
	}
	observeCertificate(t.Spec.ClusterID, time.Time{})
	klog.FromContext(ctx).Info("Tenant finalized", "tenant", klog.KObj(t), "cluster", t.Spec.ClusterID)
	return nil
}

// verifyHandshake checks the Tenant against this provider's nonce (§6.2
// step 5). The nonce is searched in every namespace, like Liqo does. The
// cached nonce answers the usual case; any doubt is settled live, so that
// a cache a moment behind never refuses a Tenant.
func (r *tenantReconciler) verifyHandshake(ctx context.Context, t *authv1beta1.Tenant) error {
	cached, err := r.nonces.List(labels.SelectorFromSet(labels.Set{kube.RemoteClusterIDLabel: t.Spec.ClusterID, kube.NonceLabel: "true"}))
	if err == nil && len(cached) == 1 {
		if nonce, err := kube.NonceOf(cached[0]); err == nil && kube.VerifyTenantHandshake(t, nonce) == nil {
			return nil
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
	if _, err := r.c.Liqo.Tenants(t.Namespace).UpdateStatus(ctx, t, metav1.UpdateOptions{}); err != nil {
		// A conflict only means our cache was behind: retried silently.
		if !apierrors.IsConflict(err) && !kube.IsNotFound(err) {
			r.events.warning(ctx, t, ReasonUpdateFailed, fmt.Sprintf("Unable to update the Tenant status: %v", err))
		}
		return err
	}
	r.events.normal(ctx, t, ReasonReconciled, "Tenant reconciled")
	if renewed {
		r.events.normal(ctx, t, ReasonCertificateRenewed, "Certificate renewed")
	}
	return nil
}

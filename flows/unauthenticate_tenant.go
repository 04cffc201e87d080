package flows

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// deleteTenant deletes the consumer's Tenant and waits until it is gone, so
// that the provider's finalizer has removed the consumer's bindings. engine
// is what serves the provider (serving.Detect): when nothing does, or the
// controller's Lease expires while waiting (it was killed), this does the
// controller's cleanup itself, so that the Tenant does not stay
// Terminating for ever. removed is told the Tenant once it is gone.
func deleteTenant(ctx context.Context, provider *kube.Cluster, consumerID string, engine Engine, removed func(string)) error {
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if kube.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("Error while retrieving tenant namespace: %w", err)
	}
	t, err := provider.TenantFor(ctx, ns.Name, consumerID)
	if kube.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if t.DeletionTimestamp == nil {
		if err := provider.DeleteTenant(ctx, ns.Name, t.Name); err != nil && !kube.IsNotFound(err) {
			return err
		}
	}
	lw := provider.TenantsListWatch(ns.Name, kube.ByName(t.Name))
	stuck := fmt.Sprintf("Tenant %s/%s is still there, held by finalizer %s: is the provider's controller running?", ns.Name, t.Name, kube.TenantFinalizer)
	served := engine != ""
	for {
		if !served {
			if err := FinalizeDeletedTenant(ctx, provider, ns.Name, t.Name); err != nil {
				return fmt.Errorf("doing the cleanup of Tenant %s/%s in place of the provider's controller: %w", ns.Name, t.Name, err)
			}
		}
		// Waiting on the in-cluster controller lasts at most until its
		// Lease expires: then it is looked at again.
		waitCtx, cancel := ctx, context.CancelFunc(func() {})
		if served && engine == EngineController {
			if expiry, ok := controllerLeaseExpiry(ctx, provider); ok {
				waitCtx, cancel = context.WithDeadline(ctx, expiry.Add(time.Second))
			}
		}
		err := kube.WaitForDeletion(waitCtx, lw, &authv1beta1.Tenant{}, stuck)
		cancel()
		if err == nil {
			removed(describe(authv1beta1.TenantKind, ns.Name, t.Name))
			return unbindLeftovers(ctx, provider, consumerID, ns.Name)
		}
		if ctx.Err() != nil || waitCtx == ctx {
			return err
		}
		if served, err = provider.ControllerRunning(ctx); err != nil {
			return err
		}
	}
}

// unbindLeftovers removes the consumer's bindings that outlived its Tenant.
// A controller unbinds from its informers' cache, which may not yet hold a
// binding made moments before (seen with Liqo's Tenant controller on a
// loaded machine): the binding's owner is gone and the garbage collector
// deletes it later, but until then the consumer keeps its rights, after
// unauthenticate said it was done. A kubeconfig that may not delete
// bindings leaves them to the garbage collector.
func unbindLeftovers(ctx context.Context, provider *kube.Cluster, consumerID, namespace string) error {
	roles, err := provider.TenantRoles(ctx)
	if err != nil {
		roles = nil // the default roles' bindings still go
	}
	if _, err := provider.UnbindTenant(ctx, consumerID, namespace, roles); err != nil && !apierrors.IsForbidden(err) {
		return err
	}
	return nil
}

// FinalizeDeletedTenant does the provider controller's cleanup of a deleted
// Tenant (controller.FinalizeTenant) with the ClusterRoles bound on this
// cluster: unauthenticate when no controller runs, and doctor's repair of
// a Tenant that a tool which does not wait (liqoctl unauthenticate) left
// Terminating.
func FinalizeDeletedTenant(ctx context.Context, provider *kube.Cluster, namespace, name string) error {
	roles, err := provider.TenantRoles(ctx)
	if err != nil {
		roles = nil // the default ones
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		t, err := provider.Tenant(ctx, namespace, name)
		if kube.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if t.DeletionTimestamp == nil {
			return nil // not ours to finalize
		}
		return controller.FinalizeTenant(ctx, provider, t, roles)
	})
}

// controllerLeaseExpiry is when the in-cluster controller's Lease expires
// unless renewed.
func controllerLeaseExpiry(ctx context.Context, c *kube.Cluster) (time.Time, bool) {
	l, err := c.ControllerLease(ctx)
	if err != nil || l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}, false
	}
	return l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second), true
}

// cleanGoneConsumer removes, once its Tenant is gone, what the provider
// made for a consumer that is gone: its bindings (already removed with the
// Tenant, unless it was gone without its finalizer) and its cached
// certificate, which nobody will ask for again.
func cleanGoneConsumer(ctx context.Context, provider *kube.Cluster, consumerID string) error {
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if kube.IsNotFound(err) {
		_, err = provider.UnbindTenant(ctx, consumerID, "", nil)
		return err
	}
	if err != nil {
		return err
	}
	roles, err := provider.TenantRoles(ctx)
	if err != nil {
		roles = nil
	}
	if _, err := provider.UnbindTenant(ctx, consumerID, ns.Name, roles); err != nil {
		return err
	}
	err = provider.DeleteSecret(ctx, ns.Name, kube.RemoteCertSecretName)
	if err != nil && !kube.IsNotFound(err) {
		return err
	}
	return nil
}

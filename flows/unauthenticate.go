package flows

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// UnauthenticateOptions drive unauthenticate (§9.3): consumer local,
// provider remote.
type UnauthenticateOptions struct {
	Consumer, Provider *kube.Cluster
	StepTimeout        time.Duration
	Engine             EngineOptions
}

// Unauthenticate deletes the consumer's Identity (its kubeconfig Secret goes
// with it) and the provider's Tenant, and waits until the provider has
// removed the consumer's bindings. Tenant namespaces, nonces and the cached
// certificate stay, so a later authenticate reuses them, as with Liqo.
func Unauthenticate(ctx context.Context, o UnauthenticateOptions, sink handshake.Sink) error {
	var eng engines
	defer eng.stop()
	var consumerID, providerID string
	consumer, provider := o.Consumer, o.Provider
	steps := []Step{
		{ID: "cluster-ids", Title: "Retrieving cluster IDs", Success: "Cluster IDs retrieved", Failure: "an error occurred while retrieving cluster id",
			Run: func(ctx context.Context) (err error) {
				if consumerID, err = consumer.ClusterID(ctx); err != nil {
					return fmt.Errorf("(local) %w", err)
				}
				if providerID, err = provider.ClusterID(ctx); err != nil {
					return fmt.Errorf("(remote) %w", err)
				}
				return nil
			}},
		{ID: "leftover-resourceslices", Scope: handshake.Local, Title: "Checking for leftover ResourceSlices", Success: "No leftover resourceslices on consumer cluster",
			Failure: "Unable to unauthenticate", Command: "kubectl get resourceslices -A -l liqo.io/replication=true,liqo.io/remoteID=<provider>",
			Run: func(ctx context.Context) error {
				sel := labels.Set{"liqo.io/replication": "true", "liqo.io/remoteID": providerID}.String()
				list, err := consumer.Liqo.ResourceSlices("").List(ctx, metav1.ListOptions{LabelSelector: sel})
				if err != nil {
					return err
				}
				if len(list.Items) > 0 {
					return fmt.Errorf("resourceslices are still present on consumer cluster (%d, e.g. %s/%s): delete them first",
						len(list.Items), list.Items[0].Namespace, list.Items[0].Name)
				}
				return nil
			}},
		{ID: "delete-identity", Scope: handshake.Local, Timeout: o.StepTimeout, Title: "Deleting identity control plane", Success: "Identity control plane correctly deleted",
			Failure: "Unable to delete identity control plane", Command: "kubectl delete identity controlplane-<provider> -n liqo-tenant-<provider>",
			Run: func(ctx context.Context) error {
				id, err := consumer.ControlPlaneIdentityFor(ctx, providerID)
				if kube.IsNotFound(err) {
					return nil
				}
				if err != nil {
					return err
				}
				// Foreground: the Identity goes only once its kubeconfig
				// Secret is gone, so waiting for it proves the credentials left.
				identities := consumer.Liqo.Identities(id.Namespace)
				fg := metav1.DeletePropagationForeground
				if err := identities.Delete(ctx, id.Name, metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil && !kube.IsNotFound(err) {
					return err
				}
				return kube.WaitForDeletion(ctx, kube.ListWatch(identities.List, identities.Watch, kube.ByName(id.Name)), &authv1beta1.Identity{},
					fmt.Sprintf("Identity %s/%s is still there: is the garbage collector of the consumer's kube-controller-manager running?", id.Namespace, id.Name))
			}},
		{ID: "engine", Scope: handshake.Remote, Title: "Checking the provider's controller", Success: "Controller ready", Failure: "Unable to start the controller",
			Run: func(ctx context.Context) error {
				_, err := eng.ensure(ctx, provider, handshake.RoleProvider, o.Engine, sink, handshake.Remote)
				return err
			}},
		{ID: "delete-tenant", Scope: handshake.Remote, Title: "Deleting tenant", Success: "Tenant correctly deleted", Failure: "Unable to delete tenant",
			Timeout: o.StepTimeout, Command: "kubectl delete tenant <consumer> -n liqo-tenant-<consumer>",
			Run: func(ctx context.Context) error { return deleteTenant(ctx, provider, sink, consumerID) }},
	}
	return run(ctx, sink, steps)
}

// deleteTenant deletes the consumer's Tenant and waits until it is gone, so
// the provider's finalizer has removed the cluster-wide binding.
func deleteTenant(ctx context.Context, provider *kube.Cluster, sink handshake.Sink, consumerID string) error {
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
	tenants := provider.Liqo.Tenants(ns.Name)
	if err := tenants.Delete(ctx, t.Name, metav1.DeleteOptions{}); err != nil && !kube.IsNotFound(err) {
		return err
	}
	return kube.WaitForDeletion(ctx, kube.ListWatch(tenants.List, tenants.Watch, kube.ByName(t.Name)), &authv1beta1.Tenant{},
		fmt.Sprintf("Tenant %s/%s is still there, held by finalizer %s: is the provider's controller running?", ns.Name, t.Name, kube.TenantFinalizer))
}

package flows

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// replicaGuard is what holds the consumer's objects replicated to the
// provider (§10): a local ResourceSlice or Renew stays, with Liqo's
// finalizer, until its copy on the provider is gone, and the kubeconfig
// Secret until nothing replicated through it is left. The consumer's
// replicator lets them go: Liqo's crd-replicator or our controller; when
// none runs, or the provider is gone (one-sided), this command does its
// part (controller.FinalizeReplicas), so that nothing stays Terminating.
type replicaGuard struct {
	consumer     *kube.Cluster
	providerID   string
	providerGone bool
	engine       Engine // the consumer's replicator, "" = none
	sink         handshake.Sink
	removed      func(string) // told the Identity and its Secret once gone
}

// detect finds the consumer's replicator, and tells it.
func (g *replicaGuard) detect(ctx context.Context) (err error) {
	if g.engine, err = serving.Detect(ctx, g.consumer); err != nil {
		return err
	}
	switch {
	case g.providerGone:
		g.note("the provider is gone: this command lets go what its replicator holds for it, without deleting the copies there")
	case g.engine == "":
		g.note("no replicator runs on the consumer: this command deletes the copies on the provider itself")
	default:
		g.note(fmt.Sprintf("the consumer's replicator (%s) deletes the copies on the provider first", g.engine))
	}
	return nil
}

func (g *replicaGuard) note(msg string) {
	if g.sink != nil {
		g.sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: msg})
	}
}

// served tells whether the replicator does the work.
func (g *replicaGuard) served() bool { return g.engine != "" && !g.providerGone }

// await runs wait (a wait for objects to go) while the replicator lets the
// replicated objects go. When none does, prepare (deletions the replicator
// would find done) and the replicator's part are done first; waiting on the
// in-cluster controller lasts until its Lease expires, then it is looked
// at again (as for the Tenant, deleteTenant).
func (g *replicaGuard) await(ctx context.Context, prepare, wait func(context.Context) error) error {
	served := g.served()
	for {
		if !served {
			if err := prepare(ctx); err != nil {
				return err
			}
			if err := g.finalize(ctx); err != nil {
				return err
			}
		}
		waitCtx, cancel := ctx, context.CancelFunc(func() {})
		if served && g.engine == EngineController {
			if expiry, ok := controllerLeaseExpiry(ctx, g.consumer); ok {
				waitCtx, cancel = context.WithDeadline(ctx, expiry.Add(time.Second))
			}
		}
		err := wait(waitCtx)
		cancel()
		if err == nil || ctx.Err() != nil || waitCtx == ctx {
			return err
		}
		running, err := g.consumer.ControllerRunning(ctx)
		if err != nil {
			return err
		}
		served = running
	}
}

// finalize does the replicator's part once (controller.FinalizeReplicas),
// and tells the copies it had to leave.
func (g *replicaGuard) finalize(ctx context.Context) error {
	left, err := controller.FinalizeReplicas(ctx, g.consumer, g.providerID, g.providerGone)
	if err != nil {
		return fmt.Errorf("doing the replicator's part for provider %s: %w", g.providerID, err)
	}
	for _, l := range left {
		g.note(fmt.Sprintf("left on the provider (it refuses its deletion: its Tenant drained or deleted there?): %s", l))
	}
	return nil
}

// stuck says why objects held by the replicator's finalizers stay, who
// should let them go, and what to do.
func (g *replicaGuard) stuck(what string) string {
	who := "this command (no replicator runs on the consumer): can it reach the provider?"
	if g.served() {
		who = string(g.engine) + " (the consumer's replicator): is it running, and can it reach the provider?"
	}
	return fmt.Sprintf("%s: they are held by finalizers %s and %s until their copies on provider %s are deleted, which is done by %s "+
		"If the provider is gone for good: liqo-auth-tui unauthenticate --one-sided --remote-cluster-id %s",
		what, kube.ReplicaFinalizer, kube.ReplicatorSecretFinalizer, g.providerID, who, g.providerID)
}

// leftoverSlices is liqoctl's check (§9.3 step 2): a ResourceSlice for the
// provider fails it. A slice being deleted is waited for: it goes once its
// copy on the provider is gone.
func (g *replicaGuard) leftoverSlices(ctx context.Context) error {
	list, err := g.consumer.ReplicatingResourceSlices(ctx, g.providerID)
	if err != nil {
		return err
	}
	var leaving []authv1beta1.ResourceSlice
	for _, rs := range list {
		if rs.DeletionTimestamp == nil {
			return fmt.Errorf("resourceslices are still present on consumer cluster (%d, e.g. %s/%s): delete them first: %s",
				len(list), rs.Namespace, rs.Name, sliceDeleteCommands(list, g.providerID))
		}
		leaving = append(leaving, rs)
	}
	if len(leaving) == 0 && g.served() {
		return nil // and copies with no slice left are the replicator's to delete
	}
	what := fmt.Sprintf("%d ResourceSlices are being deleted but still there", len(leaving))
	if len(leaving) > 0 {
		what += fmt.Sprintf(" (e.g. %s/%s)", leaving[0].Namespace, leaving[0].Name)
	}
	return g.await(ctx, func(context.Context) error { return nil }, func(ctx context.Context) error {
		for _, rs := range leaving {
			lw := g.consumer.ResourceSlicesListWatch(rs.Namespace, kube.ByName(rs.Name))
			if err := kube.WaitForDeletion(ctx, lw, &authv1beta1.ResourceSlice{}, g.stuck(what)); err != nil {
				return err
			}
		}
		return nil
	})
}

// deleteIdentity deletes the provider's ControlPlane Identity in the
// foreground and waits until it is gone: its Renew and kubeconfig Secret
// (owned by it) go first, once the Renew's copy on the provider is gone.
func (g *replicaGuard) deleteIdentity(ctx context.Context) error {
	id, err := g.consumer.ControlPlaneIdentityFor(ctx, g.providerID)
	if kube.IsNotFound(err) {
		// Gone already: what it owned may still wait for the replicator.
		return g.await(ctx, g.retire, func(context.Context) error { return nil })
	}
	if err != nil {
		return err
	}
	what := fmt.Sprintf("Identity %s/%s is still there: it goes once its Renew and kubeconfig Secret are gone (is the garbage collector of the consumer's kube-controller-manager running?), and", id.Namespace, id.Name)
	err = g.await(ctx, g.retire, func(ctx context.Context) error {
		// Foreground: the Identity goes only once its kubeconfig Secret is
		// gone, so waiting for it proves the credentials left.
		if err := g.consumer.DeleteIdentityInForeground(ctx, id.Namespace, id.Name); err != nil && !kube.IsNotFound(err) {
			return err
		}
		return kube.WaitForDeletion(ctx, g.consumer.IdentitiesListWatch(id.Namespace, kube.ByName(id.Name)), &authv1beta1.Identity{}, g.stuck(what))
	})
	if err == nil {
		err = g.dropOrphanKubeconfig(ctx, id)
	}
	if err == nil && g.removed != nil {
		g.removed(describe(authv1beta1.IdentityKind, id.Namespace, id.Name))
		if ref := id.Status.KubeconfigSecretRef; ref != nil && ref.Name != "" {
			g.removed(describe("Secret", id.Namespace, ref.Name))
		}
	}
	return err
}

// dropOrphanKubeconfig deletes a kubeconfig Secret still owned by the
// Identity just deleted. Liqo's Identity controller writes the Secret of
// any Identity it sees, one being deleted too: while the foreground
// deletion waited on the Renew, it may have made the Secret again after
// the garbage collector's last look, and then the Secret outlives its
// Identity until the collector notices. Deleting it here makes the end
// state certain, as with liqoctl's background deletion.
func (g *replicaGuard) dropOrphanKubeconfig(ctx context.Context, id *authv1beta1.Identity) error {
	s, err := g.consumer.KubeconfigSecretFor(ctx, g.providerID)
	if kube.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	owner := metav1.GetControllerOf(s)
	if owner == nil || owner.UID != id.UID {
		return nil // another Identity's: not this deletion's to remove
	}
	if err := g.consumer.DeleteSecret(ctx, s.Namespace, s.Name); err != nil && !kube.IsNotFound(err) {
		return err
	}
	return nil
}

// retire deletes, in place of the garbage collector (which does it only
// once the Identity is being deleted), the consumer's Renews for the
// provider, lets them go once their copies are deleted through the
// kubeconfig Secret, and then deletes the Secret (await lets it go next):
// the Identity then goes without waiting on them.
func (g *replicaGuard) retire(ctx context.Context) error {
	renews, err := g.consumer.ReplicatingRenews(ctx, g.providerID)
	if err != nil {
		return err
	}
	for _, r := range renews {
		if err := g.consumer.DeleteRenew(ctx, r.Namespace, r.Name); err != nil && !kube.IsNotFound(err) {
			return err
		}
	}
	if err := g.finalize(ctx); err != nil {
		return err
	}
	s, err := g.consumer.KubeconfigSecretFor(ctx, g.providerID)
	if kube.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	err = g.consumer.DeleteSecret(ctx, s.Namespace, s.Name)
	if kube.IsNotFound(err) {
		return nil
	}
	return err
}

// leftoverCopies checks the provider for ResourceSlice copies this
// consumer made that no replicator will delete any more (the local slice
// is gone): they are leftovers too.
// A kubeconfig that may not list them there (a peering user) skips it.
func leftoverCopies(ctx context.Context, provider *kube.Cluster, consumerID string) error {
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if kube.IsNotFound(err) || apierrors.IsForbidden(err) {
		return nil
	}
	if err != nil {
		return err
	}
	list, err := provider.ReplicatedResourceSlices(ctx, ns.Name, consumerID)
	if apierrors.IsForbidden(err) {
		return nil
	}
	if err != nil || len(list) == 0 {
		return err
	}
	first := list[0]
	return fmt.Errorf("%d ResourceSlice copies from this consumer are still on the provider (e.g. %s/%s) with no ResourceSlice left on the consumer: "+
		"delete them on the provider: kubectl delete resourceslices.authentication.liqo.io -n %s -l %s",
		len(list), first.Namespace, first.Name, first.Namespace, kube.ReplicaSelector(consumerID))
}

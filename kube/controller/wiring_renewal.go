package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// liqoCheckTimeout bounds the look for Liqo before wiring the replicator.
const liqoCheckTimeout = 30 * time.Second

// wireRenewProvider wires the provider's Renew status writer (§10.2): it
// answers the consumers' replicated Renews with the current authParams of
// their Tenant or ResourceSlice, on a change of either.
func (m *Manager) wireRenewProvider(r *wiring, ev *events) error {
	renews, err := r.renewInformer(m.c, kube.ReplicatedLabel+"=true", renewIndexers)
	if err != nil {
		return err
	}
	tenantClient := m.c.Liqo.Tenants("")
	tenants := r.tenants // the Tenant reconciler's, indexed byConsumer
	if tenants == nil {
		tenants = r.liqoInformer(kube.ListWatch(tenantClient.List, tenantClient.Watch, all), &authv1beta1.Tenant{}, tenantIndexers)
	}
	slices, err := r.sliceInformer(m.c, kube.ReplicatedLabel+"=true", nil)
	if err != nil {
		return err
	}
	l := r.loop("renew-provider", (&renewStatusWriter{c: m.c, events: ev, renews: renews.GetIndexer(),
		tenants: tenants.GetIndexer(), slices: slices.GetIndexer()}).sync, m.afterSync)
	if err := r.watch(renews, l.handler()); err != nil {
		return err
	}
	if err := r.watch(tenants, renewsOfTenant(l, renews.GetIndexer())); err != nil {
		return err
	}
	return r.watch(slices, renewsOfSlice(l, renews.GetIndexer()))
}

// wireRenewConsumer wires the consumer's renewer (§10.2): a Renew per
// Identity, and the provider's answer into the Identity.
func (m *Manager) wireRenewConsumer(r *wiring, ev *events) error {
	identities, err := r.identityInformer(m.c)
	if err != nil {
		return err
	}
	renews, err := r.renewInformer(m.c, kube.ReplicationLabel+"=true", nil)
	if err != nil {
		return err
	}
	l := r.loop("renewer", (&renewer{c: m.c, events: ev, identities: identities.GetIndexer(), renews: renews.GetIndexer(),
		self: &selfID{c: m.c}}).sync, m.afterSync)
	if err := r.watch(identities, l.handler()); err != nil {
		return err
	}
	return r.watch(renews, enqueueOwner(l, authv1beta1.IdentityKind))
}

// wireReplication wires the consumer's replicator of ResourceSlices and
// Renews to the providers (§10). A consumer running Liqo has its own
// (crd-replicator): two would fight over the copies.
func (m *Manager) wireReplication(r *wiring, ev *events) error {
	ctx, cancel := context.WithTimeout(context.Background(), liqoCheckTimeout)
	defer cancel()
	liqo, err := m.c.LiqoInstalled(ctx)
	if err != nil {
		return fmt.Errorf("controller: looking for Liqo before replicating to providers: %w", err)
	}
	if liqo {
		klog.Background().Info("Replicator off: Liqo is installed on this cluster, and its crd-replicator copies ResourceSlices and Renews to the providers")
		return nil
	}
	self := &selfID{c: m.c}
	// A Liqo 0.x identity this tool obtained is no v1 identity: its provider
	// serves neither ResourceSlices nor Renews (Secrets written before it
	// lost the identity type still carry it: the mark excludes them).
	secrets := r.secrets(m.c, byLabel(kube.IdentityTypeLabel+"="+string(authv1beta1.ControlPlaneIdentityType)+",!"+kube.Liqo0xClientLabel))
	if err := secrets.Informer().AddIndexers(byRemoteIDIndexers); err != nil {
		return err
	}
	rs := newRemotes(m.c, secrets.Informer().GetIndexer(), self)
	slices, err := wireReplicator(m, r, ev, sliceKind, rs, self)
	if err != nil {
		return err
	}
	renews, err := wireReplicator(m, r, ev, renewKind, rs, self)
	if err != nil {
		return err
	}
	rs.kinds = []remoteKind{slices, renews}
	remoteLoop := r.loop("replicator-remotes", func(ctx context.Context, providerID string) (time.Duration, error) {
		return 0, rs.sync(ctx, providerID)
	}, m.afterSync)
	rs.recheck = func(providerID string) { remoteLoop.queue.Add(providerID) }
	r.closers = append(r.closers, rs.stop)
	// A kubeconfig coming, rewritten (renewal) or going: the provider's
	// client follows, and what waited for it goes on.
	return r.watch(secrets.Informer(), handlerFunc(func(obj any) {
		if p := remoteClusterID(obj); p != "" {
			remoteLoop.queue.Add(p)
			slices.enqueueProvider(p)
			renews.enqueueProvider(p)
		}
	}))
}

// wireReplicator wires the replicator of one kind: an informer on the local
// objects labelled liqo.io/replication=true, in every namespace.
func wireReplicator[T replicable, L runtime.Object](m *Manager, r *wiring, ev *events, k replicaKind[T, L], rs *remotes, self *selfID) (*replicator[T, L], error) {
	inf, err := k.informer(r, m.c, kube.ReplicationLabel+"=true", replicaIndexers)
	if err != nil {
		return nil, err
	}
	rep := &replicator[T, L]{k: k, c: m.c, events: ev, local: inf.GetIndexer(), remotes: rs, self: self}
	rep.loop = r.loop("replicator-"+strings.ToLower(k.kind), rep.sync, m.afterSync)
	return rep, r.watch(inf, rep.localHandler())
}

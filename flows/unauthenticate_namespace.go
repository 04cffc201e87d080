package flows

import (
	"context"
	"fmt"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Tenant namespaces and what is left in them (§9.3): `liqoctl
// unauthenticate` keeps them, and a later authenticate reuses the nonce,
// the signed nonce and the cached certificate; only `liqoctl unpeer
// --delete-namespaces` and, for a peer that is gone, `liqoctl force unpeer`
// delete them. Unauthenticate does the same: kept when both clusters are
// reached (and told), deleted one-sided, the other cluster being gone.

// deleteTenantNamespaceStep deletes the tenant namespace of the cluster that
// is gone, with everything left in it, and waits until it is gone: after
// it, nothing on c says that this peer ever began a handshake. removed is
// told the namespace once it is gone.
func deleteTenantNamespaceStep(c *kube.Cluster, scope handshake.Scope, remoteID func() string, timeout time.Duration, removed func(string)) Step {
	return Step{ID: "delete-tenant-namespace", Scope: scope, Title: "Deleting tenant namespace", Success: "Tenant namespace deleted",
		Failure: "Error while deleting tenant namespace", Timeout: timeout,
		Command: "kubectl delete namespace -l " + kube.TenantNamespaceLabel + "," + kube.RemoteClusterIDLabel + "=<remote cluster>",
		Run: func(ctx context.Context) error {
			ns, err := c.TenantNamespace(ctx, remoteID())
			if kube.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := c.DeleteNamespace(ctx, ns.Name,
				fmt.Sprintf("namespace %s is still Terminating: is the namespace controller of kube-controller-manager running?", ns.Name)); err != nil {
				return err
			}
			removed(describe("Namespace", "", ns.Name))
			return nil
		}}
}

// tellKeptNamespaces says (to sink, when not nil, and in res.Kept), after
// both sides were unauthenticated, which tenant namespaces stay, why, and
// how to remove them.
func tellKeptNamespaces(ctx context.Context, consumer, provider *kube.Cluster, res *UnauthenticateResult, sink handshake.Sink) {
	for _, side := range []struct {
		c        *kube.Cluster
		scope    handshake.Scope
		remoteID string
		reused   string
	}{
		{consumer, handshake.Local, res.ProviderID, "its signed nonce"},
		{provider, handshake.Remote, res.ConsumerID, "its nonce and the consumer's cached certificate"},
	} {
		ns, err := side.c.TenantNamespace(ctx, side.remoteID)
		if err != nil {
			continue // nothing kept, or nothing to say about it
		}
		res.Kept = append(res.Kept, describe("Namespace", "", ns.Name))
		if sink == nil {
			continue
		}
		sink(handshake.Event{Kind: handshake.Note, Scope: side.scope, Message: fmt.Sprintf(
			"Tenant namespace %s kept, as Liqo keeps it: a later authenticate reuses %s; `kubectl delete namespace %s` removes it", ns.Name, side.reused, ns.Name)})
	}
}

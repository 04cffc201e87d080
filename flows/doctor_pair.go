package flows

import (
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
)

// doctorPair is a peering seen as its two sides: which cluster is the
// consumer and which the provider, as doctor reads them (nil: not read),
// and the handshake objects each holds about the other.
type doctorPair struct {
	consumerID, providerID       string
	consumer, provider           *Cluster
	consumerScope, providerScope handshake.Scope
	// consumerObjects and providerObjects are nil for a side not read.
	consumerObjects, providerObjects *peerings.PeerObjects
}

// both tells whether doctor reads both sides of the pair.
func (p doctorPair) both() bool { return p.consumer != nil && p.provider != nil }

// pairOf sorts a v1 row's two sides. The remote cluster counts only when
// it is the row's remote (its ID read and equal).
func (d *doctorRun) pairOf(row handshake.Peering) doctorPair {
	localID := d.localObjects.LocalID
	if localID == "" {
		// A cluster without an ID (not initialised): the fix commands
		// name it as the admin must fill it in.
		localID = "<this cluster's ID>"
	}
	var remote *Cluster
	var remoteObjects *peerings.PeerObjects
	if d.remote != nil && d.remoteObjects != nil && d.remoteObjects.LocalID == row.RemoteID {
		remote, remoteObjects = d.remote, d.peersOf(d.remoteObjects)[localID]
		if remoteObjects == nil {
			remoteObjects = &peerings.PeerObjects{} // read: nothing there about this cluster
		}
	}
	local := d.peersOf(d.localObjects)[row.RemoteID]
	if local == nil {
		local = &peerings.PeerObjects{}
	}
	if row.Role == handshake.RoleProvider {
		return doctorPair{consumerID: row.RemoteID, providerID: localID,
			consumer: remote, provider: d.local, consumerScope: handshake.Remote, providerScope: handshake.Local,
			consumerObjects: remoteObjects, providerObjects: local}
	}
	return doctorPair{consumerID: localID, providerID: row.RemoteID,
		consumer: d.local, provider: remote, consumerScope: handshake.Local, providerScope: handshake.Remote,
		consumerObjects: local, providerObjects: remoteObjects}
}

// peersOf groups a side's objects by remote, once per run (a provider
// with many consumers has a row each).
func (d *doctorRun) peersOf(o *peerings.Objects) map[string]*peerings.PeerObjects {
	if d.peers == nil {
		d.peers = map[*peerings.Objects]map[string]*peerings.PeerObjects{}
	}
	if d.peers[o] == nil {
		d.peers[o] = peerings.GroupByRemote(o)
	}
	return d.peers[o]
}

// bothSidesCommand is a command of this tool run with both kubeconfigs
// (authenticate, unauthenticate).
func bothSidesCommand(verb string) string {
	return "liqo-auth-tui " + verb + " --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"
}

// dialTimeout bounds one dial of an address doctor checks.
func (d *doctorRun) dialTimeout() time.Duration {
	if d.opts.ReachTimeout > 0 {
		return d.opts.ReachTimeout
	}
	return 5 * time.Second
}

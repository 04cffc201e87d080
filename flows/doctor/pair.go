package doctor

import (
	"context"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// pair is a peering as doctor read it, the one model every check of a
// peering works on: the local cluster's row (joined with the remote's
// when both were read) and its two sides by role, each the local cluster
// or the remote one.
type pair struct {
	row                handshake.Peering
	consumer, provider *side
}

// side is one cluster as doctor read it: a side of a peering, with what
// it holds about the other side, or a cluster alone for the cluster checks
// (role unknown, nothing about a peer). A side not read (no
// --remote-kubeconfig, or the remote is not this row's peer) has only its
// role, ID and scope.
type side struct {
	role  handshake.Role
	scope handshake.Scope
	id    string // its cluster ID; "" for a local cluster that has none
	// cluster and objects (every list of it) are nil when not read.
	cluster *kube.Cluster
	objects *peerings.Objects
	// row is its row about the other side; peer its handshake objects
	// about it (empty, never nil, when read); liqo0x its Liqo 0.x objects
	// about it (on 0.x rows only).
	row    *handshake.Peering
	peer   *peerings.PeerObjects
	liqo0x *liqo0xObjects
	// serving is who runs its controllers, read when a check first asks.
	serving *controllers
}

// pairOf sorts a row's two sides: this cluster plays the row's role (the
// provider when the row does not say), the remote the other one. The
// remote counts as read only when its row was joined to this one (both
// cluster IDs read, the remote being the row's peer).
func (d *run) pairOf(row handshake.Peering) *pair {
	p := &pair{row: row}
	local := &side{scope: handshake.Local, id: d.localObjects.LocalID, cluster: d.local, objects: d.localObjects, row: &p.row}
	remote := &side{scope: handshake.Remote, id: row.RemoteID}
	if d.remote != nil && row.Remote != nil {
		remote.cluster, remote.objects, remote.row = d.remote, d.remoteObjects, row.Remote
	}
	d.about(local, row.RemoteID, row.Generation)
	d.about(remote, local.id, row.Generation)
	p.consumer, p.provider = remote, local
	if row.Role == handshake.RoleConsumer {
		p.consumer, p.provider = local, remote
	}
	p.consumer.role, p.provider.role = handshake.RoleConsumer, handshake.RoleProvider
	return p
}

// about picks, from a side's lists, what it holds about the cluster peerID.
func (d *run) about(s *side, peerID, generation string) {
	if !s.read() {
		return
	}
	if s.peer = d.peersOf(s.objects)[peerID]; s.peer == nil {
		s.peer = &peerings.PeerObjects{}
	}
	if generation == handshake.GenerationLiqo0x {
		s.liqo0x = liqo0xObjectsOf(s.objects, peerID)
	}
}

// peersOf groups a side's objects by remote, once per run (a provider
// with many consumers has a row each).
func (d *run) peersOf(o *peerings.Objects) map[string]*peerings.PeerObjects {
	if d.peers == nil {
		d.peers = map[*peerings.Objects]map[string]*peerings.PeerObjects{}
	}
	if d.peers[o] == nil {
		d.peers[o] = peerings.GroupByRemote(o)
	}
	return d.peers[o]
}

// both tells whether doctor read both sides of the pair: only then can it
// repair what needs both (finish the handshake, re-authenticate).
func (p *pair) both() bool { return p.consumer.read() && p.provider.read() }

func (s *side) read() bool { return s.cluster != nil }

// name is the side's ID as a command or cause says it: a placeholder the
// admin fills in for a cluster that has none.
func (s *side) name() string {
	if s.id == "" {
		return "<this cluster's ID>"
	}
	return s.id
}

// on marks a command that runs on this side when it is the remote one.
func (s *side) on(command string) string {
	return onCluster(s.role, s.scope, command)
}

// identity is the consumer side's control-plane Identity for the provider.
func (s *side) identity(providerID string) *authv1beta1.Identity {
	if !s.read() {
		return nil
	}
	for _, id := range s.objects.Identities {
		if id.Spec.Type == authv1beta1.ControlPlaneIdentityType && id.Spec.ClusterID == providerID {
			return id
		}
	}
	return nil
}

// tenantNamespace is the provider's tenant namespace for the consumer.
func (s *side) tenantNamespace(consumerID string) string {
	if s.read() && s.row.TenantNamespace != "" {
		return s.row.TenantNamespace
	}
	return kube.TenantNamespaceName(consumerID)
}

// callTimeout bounds each extra read a check makes.
const callTimeout = 10 * time.Second

// controllers is who runs a side's controllers.
type controllers struct {
	ours bool // liqo-auth-controller (a cluster prepared by init)
	// liqo is Liqo v1's release ("v1.1.2") from its chart's label on
	// the cluster-ID ConfigMap; "" when not Liqo or not labelled.
	liqo    string
	old     bool // Liqo v1.0–v1.1 (consumerDriven)
	running bool // ours only: its Lease is held
}

// controllers reads who runs the side (a Lease or a ConfigMap, read only
// for a check that failed, to say why), once per side.
func (s *side) controllers(ctx context.Context) controllers {
	if !s.read() {
		return controllers{}
	}
	if s.serving != nil {
		return *s.serving
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var r controllers
	switch s.objects.Release.Flavor {
	case kube.FlavorToolInit:
		running, _ := s.cluster.ControllerRunning(ctx)
		r = controllers{ours: true, running: running}
	case kube.FlavorV1:
		if caps, err := s.cluster.LiqoV1Capabilities(ctx); err == nil {
			r = controllers{liqo: caps.Version, old: caps.ConsumerDrivenRenewal}
		}
	}
	s.serving = &r
	return r
}

// consumerDriven: Liqo v1.0–v1.1, whose consumer asks for renewals, whose
// provider renews only once its certificate cache is deleted, and whose
// consumer never applies a renewed control-plane certificate (§10.2).
func (r controllers) consumerDriven() bool { return r.old }

// notRunning: this tool's controller should serve the side and does not.
func (r controllers) notRunning() bool { return r.ours && !r.running }

// installController is the fix for a side with no controller.
const installController = "liqo-auth-tui install controller"

// noController says that no controller serves the side.
func (s *side) noController() string {
	return "no controller runs on the " + string(s.role) + " (liqo-auth-controller's Lease is not held there)"
}

// bothSidesCommand is a command of this tool run with both kubeconfigs
// (authenticate, unauthenticate).
func bothSidesCommand(verb string) string {
	return "liqo-auth-tui " + verb + " --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"
}

// dialTimeout bounds one dial of an address doctor checks.
func (d *run) dialTimeout() time.Duration {
	if d.opts.ReachTimeout > 0 {
		return d.opts.ReachTimeout
	}
	return 5 * time.Second
}

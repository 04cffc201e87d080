package flows

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The two sides of a v1 peering as doctor read them, for the checks that
// follow objects from one side to the other (certificate, replication).

// pairSide is one side of a peering: its row (nil when that cluster was
// not read), cluster and objects.
type pairSide struct {
	role    handshake.Role
	id      string // the side's cluster ID
	scope   handshake.Scope
	row     *handshake.Peering
	cluster *Cluster
	objects *peerings.Objects
}

// pairOf splits a v1 row into its consumer and provider sides.
func pairOf(d *doctorRun, row handshake.Peering) (consumer, provider pairSide) {
	local := pairSide{role: row.Role, id: d.localObjects.LocalID, scope: handshake.Local, row: &row, cluster: d.local, objects: d.localObjects}
	remote := pairSide{role: row.Role.Other(), id: row.RemoteID, scope: handshake.Remote}
	if d.remote != nil && row.Remote != nil {
		remote.row, remote.cluster, remote.objects = row.Remote, d.remote, d.remoteObjects
	}
	if row.Role == handshake.RoleConsumer {
		return local, remote
	}
	return remote, local
}

func (s pairSide) read() bool { return s.row != nil }

// on marks a command that runs on this side when it is the remote one.
func (s pairSide) on(command string) string {
	return onCluster(s.role, s.scope, command)
}

// identity is the consumer side's control-plane Identity for the provider.
func (s pairSide) identity(providerID string) *authv1beta1.Identity {
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
func (s pairSide) tenantNamespace(consumerID string) string {
	if s.read() && s.row.TenantNamespace != "" {
		return s.row.TenantNamespace
	}
	return kube.TenantNamespaceName(consumerID)
}

// doctorCallTimeout bounds each extra read a check makes.
const doctorCallTimeout = 10 * time.Second

// sideRunner is who runs a side's controllers.
type sideRunner struct {
	ours bool // liqo-auth-controller (a cluster prepared by init)
	// liqo is Liqo v1's release ("v1.1.2") from its chart's label on
	// the cluster-ID ConfigMap; "" when not Liqo or not labelled.
	liqo    string
	old     bool // Liqo v1.0–v1.1 (consumerDriven)
	running bool // ours only: its Lease is held
}

// runnerOf reads who runs a side (a Lease or a ConfigMap; made only by a
// check that failed, to say why).
func runnerOf(ctx context.Context, s pairSide) sideRunner {
	if !s.read() {
		return sideRunner{}
	}
	ctx, cancel := context.WithTimeout(ctx, doctorCallTimeout)
	defer cancel()
	switch s.objects.Release.Flavor {
	case kube.FlavorToolInit:
		running, _ := s.cluster.ControllerRunning(ctx)
		return sideRunner{ours: true, running: running}
	case kube.FlavorV1:
		if caps, err := s.cluster.LiqoV1Capabilities(ctx); err == nil {
			return sideRunner{liqo: caps.Version, old: caps.ConsumerDrivenRenewal}
		}
	}
	return sideRunner{}
}

// consumerDriven: Liqo v1.0–v1.1, whose consumer asks for renewals, whose
// provider renews only once its certificate cache is deleted, and whose
// consumer never applies a renewed control-plane certificate (§10.2).
func (r sideRunner) consumerDriven() bool { return r.old }

// notRunning: this tool's controller should serve the side and does not.
func (r sideRunner) notRunning() bool { return r.ours && !r.running }

// installController is the fix for a side with no controller.
const installController = "liqo-auth-tui install controller"

// noControllerOn says that no controller serves a side.
func noControllerOn(s pairSide) string {
	return "no controller runs on the " + string(s.role) + " (liqo-auth-controller's Lease is not held there)"
}

// latestWarning is the last Event with reason about the object (its UID,
// so not one of an object of the same name before it); nil when none.
func latestWarning(ctx context.Context, s pairSide, kind, namespace, name string, uid types.UID, reason string) *corev1.Event {
	return latestEvents(ctx, s, namespace, fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "reason": reason})[uid]
}

// latestEvents lists the Events of a namespace that match sel, and keeps
// the last one of each object (by UID). An error reads as none: the check
// then says what the objects alone tell.
func latestEvents(ctx context.Context, s pairSide, namespace string, sel fields.Set) map[types.UID]*corev1.Event {
	if !s.read() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, doctorCallTimeout)
	defer cancel()
	l, err := s.cluster.Events(ctx, namespace, sel.String())
	if err != nil {
		return nil
	}
	latest := map[types.UID]*corev1.Event{}
	for i := range l.Items {
		e := &l.Items[i]
		if old := latest[e.InvolvedObject.UID]; old == nil || eventTime(e).After(eventTime(old)) {
			latest[e.InvolvedObject.UID] = e
		}
	}
	return latest
}

// refusalText is a ReplicationForbidden Warning's message without its
// last sentence, on when the replicator tries again (stale once read).
func refusalText(e *corev1.Event) string {
	msg, _, _ := strings.Cut(e.Message, " Tried again when")
	return msg
}

func eventTime(e *corev1.Event) time.Time {
	for _, t := range []time.Time{e.LastTimestamp.Time, e.EventTime.Time, e.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return e.CreationTimestamp.Time
}

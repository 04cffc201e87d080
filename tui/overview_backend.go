package tui

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// OverviewRow is one peering of the overview, as flows' read model of
// peerings makes it (handshake.Peering): one remote cluster in one role.
// Its Route and Actions (what it offers besides verify, diagnose and
// unauthenticate) are flows' too.
type OverviewRow = handshake.Peering

// TenantMove is a liqoctl verb that changes a provider's Tenant condition.
type TenantMove string

const (
	MoveCordon   TenantMove = "cordon"
	MoveUncordon TenantMove = "uncordon"
	MoveDrain    TenantMove = "drain"
	MoveActivate TenantMove = "activate"
)

// DoctorCheck is one of doctor's checks (doctor.Check): ✓ with what it
// saw, or ✗ with its cause and the command that fixes it.
type DoctorCheck struct {
	OK                        bool
	Title, Detail, Cause, Fix string
	// Plan is the fix doctor makes itself for a failed check, one line per
	// write, as `doctor --fix` shows it before applying it (nil: only
	// Fix's commands fix it); Key names the check for ApplyRepair.
	Plan []string
	Key  string
}

// UnauthRequest says which peering to unauthenticate: both clusters when
// this workstation reaches them, else one side with the other's ID.
type UnauthRequest struct {
	Consumer, Provider     *ClusterRef
	ConsumerID, ProviderID string
	// Route is the peering's (OverviewRow.Route()).
	Route handshake.Route
}

// OverviewBackend is what the overview screen needs (overview.go): the
// peerings, doctor's diagnosis and repairs, and the actions on a peering,
// each an interface of its own the screen holds.
type OverviewBackend interface {
	OverviewReader
	PeeringDoctor
	PeeringActions
}

// PeeringLister lists a cluster's peerings: the detect screen, to show the
// overview first when there are some, and the line mode's overview.
type PeeringLister interface {
	// Overview lists every peering of c (with remote: only those between
	// the two, each with both sides).
	Overview(ctx context.Context, c ClusterRef, remote *ClusterRef) ([]OverviewRow, error)
}

// OverviewReader is how the overview reads the peerings it lists.
type OverviewReader interface {
	PeeringLister
	// WatchOverview sends the overview, then a new one after each change
	// (from watches), until ctx ends, when the channel closes. Only the
	// latest is kept: a slow reader skips stale ones.
	WatchOverview(ctx context.Context, c ClusterRef, remote *ClusterRef) (<-chan []OverviewRow, error)
}

// PeeringDoctor is the overview's diagnose and fix (overview_repair.go).
type PeeringDoctor interface {
	// Diagnose is doctor's checks of c (and remote) for the peering with
	// remoteID. It writes nothing.
	Diagnose(ctx context.Context, c ClusterRef, remote *ClusterRef, remoteID string) ([]DoctorCheck, error)
	// ApplyRepair makes the writes of check's Plan (a check of Diagnose's
	// with a Plan, shown and confirmed), as `doctor --fix` does, and
	// returns doctor's checks of the peering after them.
	ApplyRepair(ctx context.Context, c ClusterRef, remote *ClusterRef, remoteID string, check DoctorCheck) ([]DoctorCheck, error)
}

// PeeringActions are the overview's actions on the peering selected
// (overview_actions.go) besides diagnose.
type PeeringActions interface {
	Verifier
	// MoveQuestion is what liqoctl asks before move changes consumerID's
	// Tenant ("" = it does not ask). No network.
	MoveQuestion(move TenantMove, consumerID string) string
	// MoveTenant changes consumerID's Tenant on provider; the wizard asked
	// MoveQuestion first.
	MoveTenant(ctx context.Context, provider ClusterRef, consumerID string, move TenantMove, sink handshake.Sink) error
	// DeleteResourceSlice deletes the consumer's slice name with providerID.
	DeleteResourceSlice(ctx context.Context, consumer ClusterRef, name, providerID string) error
	// Unauthenticate removes the peering's authentication; it returns
	// what is left on a side it did not reach, with the command that
	// removes it there, one line each.
	Unauthenticate(ctx context.Context, req UnauthRequest, sink handshake.Sink) ([]string, error)
}

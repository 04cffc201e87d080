package flows

import (
	"context"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// PeeringRow is one peering this cluster takes part in: one remote cluster
// in one role, as `status` prints it (-o json|yaml keeps these field names)
// and the wizard's overview shows it. A remote this cluster both consumes
// from and provides to has two rows, one per role.
type PeeringRow struct {
	RemoteID string `json:"remoteClusterID"`
	// RemoteName is the remote's cluster name where the objects carry one
	// (Liqo 0.x); Liqo v1 names clusters by ID only.
	RemoteName string `json:"remoteClusterName,omitempty"`
	// Role is the role THIS cluster plays: consumer (it holds an identity
	// for the remote) or provider (it issued one); "" when only a tenant
	// namespace says the remote is known.
	Role handshake.Role `json:"role"`
	// Generation is "v1" (authentication.liqo.io) or "0.x" (Liqo 0.x's
	// token authentication).
	Generation string `json:"generation"`
	// MadeBy is whose controllers made this side: "liqo" (Liqo v1 or 0.x
	// installed here) or "liqo-auth-tui" (this tool's controller on a
	// cluster prepared by init, or this tool as a Liqo 0.x consumer).
	MadeBy          string          `json:"madeBy"`
	Stage           handshake.Stage `json:"stage,omitempty"`
	TenantNamespace string          `json:"tenantNamespace,omitempty"`
	// Identity is the consumer's identity for the remote (consumer rows):
	// pending until its kubeconfig is written, then ready.
	Identity ObjectState `json:"identity,omitempty"`
	// Tenant is the provider's Tenant of the remote (provider rows, v1):
	// pending until its status is filled, then ready.
	Tenant ObjectState `json:"tenant,omitempty"`
	// TenantCondition is the provider admin's word on the Tenant: Active,
	// Cordoned or Drained (provider rows, v1).
	TenantCondition string `json:"tenantCondition,omitempty"`
	// Renew is the control-plane Renew (§10.2, Liqo v1.2+): pending until
	// the provider answered it.
	Renew ObjectState `json:"renew,omitempty"`
	// Authentication is a Liqo 0.x consumer's AuthenticationStatus
	// (Established, Pending, Error ...) and its message, tokens masked.
	Authentication string `json:"authentication,omitempty"`
	// The current certificate of the identity (consumer) or of the Tenant
	// (provider); zero when there is none or it is unreadable.
	CertificateNotBefore time.Time `json:"certificateNotBefore,omitzero"`
	CertificateNotAfter  time.Time `json:"certificateNotAfter,omitzero"`
	// LastRenewal is when this consumer last applied a certificate the
	// provider renewed (what `verify` shows); zero: never.
	LastRenewal time.Time     `json:"lastRenewal,omitzero"`
	Slices      []SliceStatus `json:"slices,omitempty"`
	// Requested and Granted add up the slices' quantities.
	Requested map[string]string `json:"requested,omitempty"`
	Granted   map[string]string `json:"granted,omitempty"`
	Health    Health            `json:"health"`
	// Remote is the remote's own row about this cluster, when both sides
	// were read (its Remote is nil). Its zero Stage and states mean the
	// remote has nothing for this cluster.
	Remote *PeeringRow `json:"remote,omitempty"`
}

// ObjectState is where one handshake object stands on its cluster.
type ObjectState string

const (
	StateAbsent   ObjectState = ""
	StatePending  ObjectState = "pending"
	StateReady    ObjectState = "ready"
	StateDeleting ObjectState = "deleting"
)

// Health is a verdict and the reason for it, in one line.
type Health struct {
	Verdict handshake.Verdict `json:"verdict"`
	Reason  string            `json:"reason,omitempty"`
}

// Generations of a row.
const (
	GenerationV1     = "v1"
	GenerationLiqo0x = "0.x"
)

// Who made a side of a peering.
const (
	MadeByLiqo = "liqo"
	MadeByTool = "liqo-auth-tui"
)

// OverviewOptions tune Overview and WatchOverview.
type OverviewOptions struct {
	// Remote, when set, is read too: the rows with it carry its own row
	// about this cluster (Remote), and the health covers both sides.
	Remote *Cluster
	// Now is the clock of the health verdicts (nil: time.Now).
	Now func() time.Time
	// Debounce is WatchOverview's quiet time before a new overview (0:
	// DefaultOverviewDebounce).
	Debounce time.Duration
	// OnSnapshot, when set, is handed what each overview read, before its
	// rows are returned or sent (by WatchOverview from its goroutine):
	// doctor checks it instead of listing the clusters again
	// (DoctorOptions.Snapshot).
	OnSnapshot func(*OverviewSnapshot)
}

func (o OverviewOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Overview lists every peering c takes part in, as consumer and provider,
// Liqo v1 and 0.x, whoever made it: one list per kind (never a read per
// peer), so that a provider with thousands of consumers answers at once.
// With o.Remote, the remote is read the same way and joined by cluster ID.
func Overview(ctx context.Context, c *Cluster, o OverviewOptions) ([]PeeringRow, error) {
	local, remote, err := listBoth(ctx, c, o.Remote)
	if err != nil {
		return nil, err
	}
	o.tell(local, remote)
	return overviewOf(local, remote, o.now()), nil
}

// overviewOf builds the rows of local's objects, joined with remote's
// (nil: only local), with their health at now.
func overviewOf(local, remote *peeringObjects, now time.Time) []PeeringRow {
	rows := rowsOf(local)
	if remote != nil {
		rows = join(rows, local.localID, rowsOf(remote), remote.localID)
	}
	for i := range rows {
		markUnauthenticated(&rows[i])
		rows[i].Health = HealthOf(rows[i], now)
	}
	return rows
}

// PairStates are the Identity (consumer side), Tenant and Tenant condition
// (provider side) of a peering, each from the side that holds it: this
// row, or its Remote when both sides were read.
func (r PeeringRow) PairStates() (identity, tenant ObjectState, condition string) {
	identity, tenant, condition = r.Identity, r.Tenant, r.TenantCondition
	if o := r.Remote; o != nil {
		if r.Role == handshake.RoleProvider {
			identity = o.Identity
		} else {
			tenant, condition = o.Tenant, o.TenantCondition
		}
	}
	return identity, tenant, condition
}

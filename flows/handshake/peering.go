package handshake

import "time"

// What the read model of peerings (flows/peerings) makes of a cluster's
// handshake objects, client-free so that the wizard shows it as it is.

// Peering is one peering this cluster takes part in: one remote cluster
// in one role, as `status` prints it (-o json|yaml keeps these field names)
// and the wizard's overview shows it. A remote this cluster both consumes
// from and provides to has two rows, one per role.
type Peering struct {
	RemoteID string `json:"remoteClusterID"`
	// RemoteName is the remote's cluster name where the objects carry one
	// (Liqo 0.x); Liqo v1 names clusters by ID only.
	RemoteName string `json:"remoteClusterName,omitempty"`
	// Role is the role THIS cluster plays: consumer (it holds an identity
	// for the remote) or provider (it issued one); "" when only a tenant
	// namespace says the remote is known.
	Role Role `json:"role"`
	// Generation is "v1" (authentication.liqo.io) or "0.x" (Liqo 0.x's
	// token authentication).
	Generation string `json:"generation"`
	// MadeBy is whose controllers made this side: "liqo" (Liqo v1 or 0.x
	// installed here) or "liqo-auth-tui" (this tool's controller on a
	// cluster prepared by init, or this tool as a Liqo 0.x consumer).
	MadeBy          string `json:"madeBy"`
	Stage           Stage  `json:"stage,omitempty"`
	TenantNamespace string `json:"tenantNamespace,omitempty"`
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
	Remote *Peering `json:"remote,omitempty"`
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
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
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

// PairStates are the Identity (consumer side), Tenant and Tenant condition
// (provider side) of a peering, each from the side that holds it: this
// row, or its Remote when both sides were read.
func (r Peering) PairStates() (identity, tenant ObjectState, condition string) {
	identity, tenant, condition = r.Identity, r.Tenant, r.TenantCondition
	if o := r.Remote; o != nil {
		if r.Role == RoleProvider {
			identity = o.Identity
		} else {
			tenant, condition = o.Tenant, o.TenantCondition
		}
	}
	return identity, tenant, condition
}

// Condition is the Tenant's condition (Active, Cordoned or Drained; ""
// unknown), from the side that holds it (PairStates).
func (r Peering) Condition() string {
	_, _, condition := r.PairStates()
	return condition
}

// SliceNames are the names of the consumer's ResourceSlices with the remote.
func (r Peering) SliceNames() []string {
	var names []string
	for _, s := range r.Slices {
		names = append(names, s.Name)
	}
	return names
}

// Route is how this peering authenticated: how it is undone, and what the
// overview offers on it (Actions).
func (r Peering) Route() Route { return routeOf(r.Generation == GenerationLiqo0x) }

// Actions are what the overview offers on this peering besides verify,
// diagnose and unauthenticate; the row's Health must be set (as Overview's
// rows have it).
func (r Peering) Actions() PeeringActions {
	if r.Route() == RouteV1 {
		return PeeringActions{TenantMoves: true, ResourceSlices: true, Authenticate: r.resumable()}
	}
	// Liqo 0.x: no Tenant to move; its resources go through liqoctl peer;
	// its authentication asks for options first (the flow of its own).
	return PeeringActions{}
}

// resumable tells whether authenticate, run from here on both clusters,
// is the peering's next step: both sides were read and the handshake
// stopped at a step, is one-sided, or the pair was unauthenticated.
func (r Peering) resumable() bool {
	if r.Remote == nil || r.Role == RoleUnknown {
		return false
	}
	switch r.Health.Verdict {
	case VerdictIncomplete, VerdictUnauthenticated, VerdictOneSided:
		return true
	}
	return false
}

// routeOf is RouteLiqo0x for Liqo 0.x, else RouteV1.
func routeOf(isLiqo0x bool) Route {
	if isLiqo0x {
		return RouteLiqo0x
	}
	return RouteV1
}

// SliceStatus is what a consumer knows of one of its ResourceSlices.
type SliceStatus struct {
	Name           string `json:"name"`
	ProviderID     string `json:"providerClusterID"`
	Class          string `json:"class,omitempty"`
	Authentication string `json:"authentication,omitempty"` // "Accepted" | "Denied" | ""
	Resources      string `json:"resources,omitempty"`      // "Accepted" | "Denied" | ""
	Message        string `json:"message,omitempty"`
	// Reason is the denying condition's reason (e.g. Liqo's
	// ResourceSliceResourcesDenied, DefaultResourceSliceClassDisabled).
	Reason    string            `json:"reason,omitempty"`
	Requested map[string]string `json:"requested,omitempty"`
	Granted   map[string]string `json:"granted,omitempty"`
	// Identity and KubeconfigSecret are namespace/name on the consumer, "" = none yet.
	Identity         string    `json:"identity,omitempty"`
	KubeconfigSecret string    `json:"kubeconfigSecret,omitempty"`
	NotAfter         time.Time `json:"notAfter,omitzero"` // of the slice's certificate, zero = none
}

// SliceDenied is a slice condition's status when the provider refused it
// (Liqo's ResourceSliceConditionDenied).
const SliceDenied = "Denied"

// ResourcesShown is the Resources decision as a table shows it: with the
// reason when it says more than Liqo's plain denial.
func (s SliceStatus) ResourcesShown() string {
	if s.Resources == SliceDenied && s.Reason != "" && s.Reason != liqoResourcesDeniedReason && s.Reason != liqoAuthenticationDeniedReason {
		return s.Resources + " (" + s.Reason + ")"
	}
	return s.Resources
}

// Liqo's plain denials (kube.SliceResourcesDeniedReason, ...), which a
// table leaves out.
const (
	liqoResourcesDeniedReason      = "ResourceSliceResourcesDenied"
	liqoAuthenticationDeniedReason = "ResourceSliceAuthenticationDenied"
)

// Denied tells whether the provider refused the slice's authentication or
// its resources.
func (s SliceStatus) Denied() bool {
	return s.Authentication == SliceDenied || s.Resources == SliceDenied
}

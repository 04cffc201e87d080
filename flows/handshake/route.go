package handshake

// Route is how a consumer and a provider authenticate. flows decides it,
// once per question (authenticating a pair, undoing a peering, what a
// peering of the overview holds), and both front-ends read it: neither
// works it out from a Liqo flavor, a generation or a step ID. A new kind of
// authentication is one constant here plus its case in flows' decisions.
// The zero Route is not known (yet): a manual consumer learns it from what
// it receives.
type Route string

const (
	// RouteV1 is the v1 handshake: nonce, Tenant, Identity (§9).
	RouteV1 Route = "v1"
	// RouteLiqo0x is Liqo 0.x's token authentication: the provider's peer
	// info, then an identity from its liqo-auth server; no nonce, Tenant or
	// Identity.
	RouteLiqo0x Route = "liqo0x"
)

// PeeringActions are what a peering offers besides verify, diagnose and
// unauthenticate, as flows decides from its route (the overview's menu).
type PeeringActions struct {
	// TenantMoves: the provider holds a Tenant that cordon, uncordon,
	// drain and activate change.
	TenantMoves bool
	// ResourceSlices: the consumer asks the provider for resources with
	// ResourceSlices (§10.1).
	ResourceSlices bool
	// Authenticate: the overview read both clusters and the handshake is
	// not complete (it stopped at a step, or the pair was unauthenticated):
	// authenticate runs it on both from where it stands. Read with one
	// cluster, the next step is the other admin's (the row's reason says
	// which).
	Authenticate bool
}

package handshake

// Verdict is the one-word health of a peering that `status` and the
// wizard's overview show; flows.HealthOf decides it from a row alone.
type Verdict string

const (
	// VerdictOK: the handshake is complete on the sides read and nothing
	// below holds.
	VerdictOK Verdict = "ok"
	// VerdictUnauthenticated: the pair was unauthenticated and nothing of
	// its peering is left but what Liqo keeps for a later authenticate
	// (the tenant namespaces, the nonce, the cached certificate): nothing
	// to attend to.
	VerdictUnauthenticated Verdict = "unauthenticated"
	// VerdictPending: a controller has yet to answer (a Tenant without
	// status, an Identity without kubeconfig, a slice not decided, Liqo 0.x
	// asking for its identity): it should resolve by itself.
	VerdictPending Verdict = "pending"
	// VerdictIncomplete: the handshake stopped where an admin must act (a
	// nonce without a Tenant, a signed nonce without an Identity, a tenant
	// namespace with nothing in it).
	VerdictIncomplete Verdict = "incomplete"
	// VerdictExpiring: the certificate is past the time it should have been
	// renewed (2/3 of its validity).
	VerdictExpiring Verdict = "expiring"
	// VerdictOneSided: one side has the peering, the other nothing (only
	// when both sides are read).
	VerdictOneSided Verdict = "one-sided"
	// VerdictCordoned: the provider cordoned the Tenant: no new resources.
	VerdictCordoned Verdict = "cordoned"
	// VerdictDenied: the provider refused a ResourceSlice, or a Liqo 0.x
	// provider refused the identity request.
	VerdictDenied Verdict = "denied"
	// VerdictDrained: the provider drained the Tenant: resources neither
	// used nor negotiated.
	VerdictDrained Verdict = "drained"
	// VerdictExpired: the certificate expired.
	VerdictExpired Verdict = "expired"
)

// verdictOrder lists the verdicts from the mildest to the worst.
var verdictOrder = []Verdict{VerdictOK, VerdictUnauthenticated, VerdictPending, VerdictIncomplete, VerdictExpiring, VerdictOneSided,
	VerdictCordoned, VerdictDenied, VerdictDrained, VerdictExpired}

// Severity orders verdicts (higher is worse): a peering read on both sides
// shows the worse of the two.
func (v Verdict) Severity() int {
	for i, o := range verdictOrder {
		if o == v {
			return i
		}
	}
	return len(verdictOrder)
}

// NeedsAttention tells whether a peering with this verdict needs an
// admin's look: every verdict but ok and unauthenticated.
func (v Verdict) NeedsAttention() bool {
	return v != VerdictOK && v != VerdictUnauthenticated
}

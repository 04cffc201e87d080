package handshake

// Stage is where one side of a manual handshake stands with one peer, read
// from its cluster: quitting anywhere and starting again lands on the next
// step.
type Stage string

const (
	// Provider stages.
	StageCreateNonce      Stage = "create-nonce"      // no nonce yet for the consumer
	StageAwaitTenant      Stage = "await-tenant"      // nonce exists, no accepted Tenant
	StageGenerateIdentity Stage = "generate-identity" // Tenant accepted: send the Identity
	// Consumer stages.
	StageAwaitNonce    Stage = "await-nonce"    // nothing signed yet for the provider
	StageAwaitIdentity Stage = "await-identity" // nonce signed, Tenant sent: waiting for the Identity
	StageAuthenticated Stage = "authenticated"  // the kubeconfig Secret exists
	// Liqo 0.x stages, shown by `status` (no manual hand-off resumes them).
	StageAuthenticating Stage = "authenticating"  // consumer: Liqo 0.x asks the provider for an identity
	StageIdentityIssued Stage = "identity-issued" // provider: an identity was issued to the consumer
	// StageUnauthenticated: the peering was undone with both clusters at
	// hand (§9.3): the provider's Tenant is gone, its tenant namespace kept
	// with the nonce and the consumer's cached certificate, as Liqo keeps
	// it; read on both sides, the consumer has no Identity either. Not a
	// handshake that stopped: a later authenticate starts it again and
	// reuses what was kept. Only the overview says it (a provider read
	// alone, or a pair read on both sides); a consumer read alone cannot
	// tell it from a handshake waiting for the Identity.
	StageUnauthenticated Stage = "unauthenticated"
)

// Started tells whether the side has done anything with the peer yet.
func (s Stage) Started() bool {
	return s != "" && s != StageCreateNonce && s != StageAwaitNonce
}

// Describe is the stage in words, for lists of peers.
func (s Stage) Describe() string {
	switch s {
	case "", StageCreateNonce, StageAwaitNonce:
		return "nothing yet"
	case StageAwaitTenant:
		return "nonce created, waiting for the Tenant"
	case StageGenerateIdentity:
		return "Tenant accepted, Identity to send"
	case StageAwaitIdentity:
		return "nonce signed, Tenant sent: waiting for the Identity"
	case StageAuthenticated:
		return "authenticated (kubeconfig Secret present)"
	case StageUnauthenticated:
		return "unauthenticated (tenant namespace kept for a later authenticate)"
	case StageAuthenticating:
		return "Liqo 0.x is asking the provider for an identity"
	case StageIdentityIssued:
		return "identity issued to the consumer (Liqo 0.x)"
	}
	return string(s)
}

// NextStep is what one side does next with a peer: worked out here once,
// so that --batch and the wizard resume the same way.
type NextStep string

const (
	// NextCreateNonce: provider, (re)create the nonce; it is idempotent.
	NextCreateNonce NextStep = "create-nonce"
	// NextGenerateIdentity: provider, the Tenant is accepted: send the
	// Identity (again).
	NextGenerateIdentity NextStep = "generate-identity"
	// NextReceiveNonce: consumer, nothing signed yet: the provider's nonce
	// comes first.
	NextReceiveNonce NextStep = "receive-nonce"
	// NextGenerateTenant: consumer, the nonce is signed: send the Tenant
	// (again) from it.
	NextGenerateTenant NextStep = "generate-tenant"
	// NextVerify: consumer, authenticated: check the kubeconfig Secret.
	NextVerify NextStep = "verify"
)

// Next is the step that follows stage s for a side playing role r.
func (s Stage) Next(r Role) NextStep {
	if r == RoleProvider {
		if s == StageGenerateIdentity {
			return NextGenerateIdentity
		}
		return NextCreateNonce
	}
	switch s {
	case StageAuthenticated:
		return NextVerify
	case StageAwaitIdentity:
		return NextGenerateTenant
	}
	return NextReceiveNonce
}

package handshake

// AdvertiseSource says where the API server a consumer gets comes from.
type AdvertiseSource string

const (
	// AdvertiseOverride: --api-server-override or the wizard's edit, put on
	// the Tenant as annotations.
	AdvertiseOverride AdvertiseSource = "override"
	// AdvertiseNode: a control-plane Node's address (the in-cluster
	// controller's and Liqo's default).
	AdvertiseNode AdvertiseSource = "node"
	// AdvertiseKubeconfig: the provider kubeconfig's server (in-process).
	AdvertiseKubeconfig AdvertiseSource = "kubeconfig"
	// AdvertiseController: the flags of the controller serving the provider.
	AdvertiseController AdvertiseSource = "controller"
)

// Text says, for people, where the API server address a consumer gets
// comes from. The wizard's advertise screen and the peering user's report
// both print it.
func (s AdvertiseSource) Text() string {
	if text, ok := map[AdvertiseSource]string{
		AdvertiseOverride:   "set for this consumer",
		AdvertiseNode:       "a control-plane node's address, as Liqo advertises it",
		AdvertiseKubeconfig: "the server of this provider's kubeconfig",
		AdvertiseController: "the flags of the controller serving the provider",
	}[s]; ok {
		return text
	}
	return string(s)
}

// Engine names what serves a side of the handshake.
type Engine string

const (
	EngineLiqo       Engine = "Liqo's controller-manager"
	EngineController Engine = "liqo-auth-controller (in-cluster)"
	EngineInProcess  Engine = "in-process controller"
	// EngineControllerAssumed: the kubeconfig may not read the controller's
	// Lease (Liqo's peering user may not), so it may not hold one to run
	// controllers in-process either; only a controller running on the
	// cluster can serve the side, and the flow relies on it.
	EngineControllerAssumed Engine = "liqo-auth-controller (in-cluster; not checked: this kubeconfig may not read its Lease)"
)

// Advertisement is what a consumer will be told to reach the provider at:
// authParams.apiServer and authParams.ca (§6.4).
type Advertisement struct {
	APIServer string
	// CA is the PEM advertised; nil with TrustedCA.
	CA []byte
	// CAFingerprint of the advertised CA; "" with TrustedCA.
	CAFingerprint string
	TrustedCA     bool
	Source        AdvertiseSource
	// Engine serves the provider: with EngineLiqo, no override applies.
	Engine Engine
	// Fixed: the engine (real Liqo) decides what it advertises, whatever
	// the overrides; FixedHint says how to change it there.
	Fixed     bool
	FixedHint string
}

package handshake

import "time"

// The results flows returns that the wizard shows as they are: defined here,
// without a Kubernetes client, so that flows, the commands and tui share one
// type instead of a mapping layer copying it field by field.

// Peer is another cluster this one has handshake objects for, and where
// the handshake with it stands here.
type Peer struct {
	ID    string
	Stage Stage
}

// Verification is what a consumer's credentials can do on the provider.
type Verification struct {
	Server          string   `json:"server"`
	TenantNamespace string   `json:"tenantNamespace"`
	User            string   `json:"user"`
	Groups          []string `json:"groups"`
	Allowed         []string `json:"allowed"`
	Denied          []string `json:"denied"`
	// CertificateNotAfter is when the kubeconfig's certificate expires, or
	// else the Identity's (zero: neither readable); the provider renews it
	// at 2/3 of its validity.
	CertificateNotAfter time.Time `json:"certificateNotAfter,omitzero"`
	// LastRenewal is when this consumer last applied a certificate the
	// provider renewed (the Identity's liqo-auth-tui.io/last-renewal
	// annotation); zero: never.
	LastRenewal time.Time `json:"lastRenewal,omitzero"`
	// Unreached, when set, says why the provider was not reached from this
	// machine, and so nothing above User was checked: its API server is
	// reached through Liqo's in-band proxy, only inside Liqo's network
	// fabric. Not a failure.
	Unreached string `json:"unreached,omitempty"`
}

// ControllerInstall is what installing the in-cluster controller did; the
// changes made before a failure come back with it.
type ControllerInstall struct {
	// Image is the controller image the Deployment runs.
	Image string `json:"image"`
	// Changed are the objects created or updated, one line each
	// ("Deployment liqo-auth-controller created"), in the order applied;
	// Unchanged the ones found as the manifests say ("Namespace liqo").
	Changed   []string `json:"changed"`
	Unchanged []string `json:"unchanged"`
	// ServedBy is the Pod that serves the cluster once the install waited
	// for it ("liqo-auth-controller-… on node-1"); NoReadyNode says the
	// cluster has no Ready Node, where the Pods cannot run until one
	// joins (in-process runs serve it meanwhile). Both empty: not waited.
	ServedBy    string `json:"servedBy,omitempty"`
	NoReadyNode bool   `json:"noReadyNode,omitempty"`
}

// ProviderSlices is what serves a provider, and the copies of one
// consumer's ResourceSlices it holds, with its answers.
type ProviderSlices struct {
	Engine Engine
	Slices []SliceStatus // by name
}

// InProcess tells whether this process's controllers serve the provider
// (they stop when it does).
func (p ProviderSlices) InProcess() bool { return p.Engine == EngineInProcess }

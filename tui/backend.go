// Package tui is the interactive wizard of liqo-auth-tui. It talks to the
// clusters only through the Backend interface (implemented with flows and kube
// by cmd/liqo-auth-tui/wizardbackend), so this package stays free of client-go and can be
// tested with a fake backend.
package tui

import (
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// ClusterRef selects one cluster like kubectl's flags do.
type ClusterRef struct {
	Kubeconfig string // "" = KUBECONFIG / ~/.kube/config
	Context    string // "" = the current context
	Namespace  string // Liqo namespace ("" = liqo)
	// ProxyURL is the proxy to reach this cluster's API server through
	// ("" = the kubeconfig's, if any): the provider's, with --proxy-url.
	ProxyURL string
}

// Given tells whether anything selects this cluster.
func (r ClusterRef) Given() bool { return r.Kubeconfig != "" || r.Context != "" }

// Flags are the command-line flags that select this cluster, with a
// leading space ("" for the default kubeconfig and context).
func (r ClusterRef) Flags() string {
	var flags string
	if r.Kubeconfig != "" {
		flags += " --kubeconfig " + r.Kubeconfig
	}
	if r.Context != "" {
		flags += " --context " + r.Context
	}
	return flags
}

// Describe names the kubeconfig and context for messages.
func (r ClusterRef) Describe() string {
	where := r.Kubeconfig
	if where == "" {
		where = "default kubeconfig"
	}
	if r.Context != "" {
		where += ", context " + r.Context
	}
	return where
}

// ClusterInfo is what the detect screen shows about a cluster (kube.Info).
type ClusterInfo struct {
	Server         string
	Context        string
	User           string
	Groups         []string
	ClusterID      string
	LiqoInstalled  bool
	Controller     bool
	KeyAlgorithm   string
	KeyFingerprint string
	// Restricted: the user may not read the keys or the controller's Lease
	// (a peering user, §9.4); KeyFingerprint and Controller are unknown.
	Restricted bool
	// LiqoFlavor, LiqoVersion and LiqoLine are the backend's words for
	// the Liqo release the cluster runs, handed back to PairProblem; the
	// wizard never reads them itself: it shows FlavorLine and goes by
	// Route, Liqo0x and Unsupported.
	LiqoFlavor, LiqoVersion, LiqoLine string
	// Route is how a consumer authenticates with this cluster as its
	// provider (flows decides it from the release the cluster runs).
	Route handshake.Route
	// FlavorLine says which Liqo (v1, 0.x, none) the cluster runs, in the words
	// `info` prints too ("" = not told).
	FlavorLine string
	// Liqo0x: the cluster runs Liqo 0.x, whose token authentication
	// replaces the v1 handshake.
	Liqo0x bool
	// Unsupported is why the tool cannot authenticate with this Liqo 0.x
	// cluster on its own (v0.2), "" when it can.
	Unsupported string
	// Liqo0xAuthDisabled: a 0.x cluster's auth server accepts any token.
	Liqo0xAuthDisabled bool
}

// Ready tells whether the cluster has what the handshake needs (ID, keys).
// A restricted user's cluster is taken as ready when its ID is visible: it
// cannot see the keys, nor run init.
func (i *ClusterInfo) Ready() bool {
	return i != nil && i.ClusterID != "" && (i.KeyFingerprint != "" || i.LiqoInstalled || i.Restricted)
}

// InitResult reports what init did on a cluster.
type InitResult struct {
	ClusterID     string
	LiqoInstalled bool
	Changes       []string
}

// InstallResult reports what installing the in-cluster controller did.
type InstallResult = handshake.ControllerInstall

// Artifact is a nonce, Tenant, Identity or peering-user kubeconfig,
// produced here or received.
type Artifact struct {
	Kind handshake.ArtifactKind
	// Data is exactly what is sent to the other admin (file, print).
	Data []byte
	// Preview is what may be shown and copied; "" = Data. It differs when
	// the artifact carries credentials (an EKS Identity's AWS keys, a
	// peering user's private key).
	Preview string
	// Sensitive artifacts are never put on the clipboard.
	Sensitive bool
	// Fingerprint: the consumer key (Tenant), the provider CA (Identity).
	Fingerprint string
	// Code is the verification code both admins read aloud (Tenant,
	// Identity; "" when it could not be computed).
	Code string
	// FromID made the artifact; ForID is the cluster it is for.
	FromID, ForID string
	// APIServer an Identity tells the consumer to use.
	APIServer string
	// NotAfter is when an Identity's signed certificate, or a peering
	// user's, expires (zero if unknown).
	NotAfter time.Time
	// User is a peering user's name (its certificate's CN).
	User string
	// Masked: Preview hides a credential (a peer info's token) that the
	// admin may reveal; unlike Sensitive, Data may go on the clipboard.
	Masked bool
	// Warning is what the receiver must know before using it, loudly
	// (a Liqo 0.x provider whose authentication is disabled); "" = none.
	Warning string
	// Equivalent is the same hand-off as a liqoctl command, for admins who
	// prefer it ("" = none); it carries what Data carries.
	Equivalent string
	// MaskedEquivalent is Equivalent with its credential masked, shown
	// until the admin reveals it.
	MaskedEquivalent string
}

// Shown is the text that may appear on screen or on the clipboard.
func (a *Artifact) Shown() string {
	if a.Preview != "" {
		return a.Preview
	}
	return string(a.Data)
}

// Peer is another cluster this one has handshake objects for.
type Peer = handshake.Peer

// AuthResult is what a completed consumer side produced.
type AuthResult struct {
	ConsumerID, ProviderID string
	Identity               string // namespace/name on the consumer
	KubeconfigSecret       string // namespace/name on the consumer
	ConsumerFingerprint    string
	// CertificateExpiry is the notAfter of the Identity's signed
	// certificate (zero if unknown).
	CertificateExpiry time.Time
}

// Verification is what the consumer's credentials can do on the provider.
type Verification = handshake.Verification

// Backend is everything the wizard needs from the clusters: the
// composition of the small interfaces each screen or flow declares next to
// itself and holds alone (a field of the narrow type, filled from the
// session when the screen is built), so that a screen names the part it uses
// and a fake implements only that. Every method may block on the network
// (except those said not to): the wizard calls them only inside tea.Cmds.
type Backend interface {
	ContextLister   // start.go
	ClusterProber   // detect.go
	PairJudge       // liqo0x.go
	ClusterPreparer // ops.go: init, the controller's install
	PeerFinder      // peer.go
	// ops.go: the v1 handshake, automated and each side's manual steps.
	AutomatedHandshake
	ProviderHandshake
	ConsumerHandshake
	ArtifactChecker     // receive.go
	Advertiser          // advertise.go
	SliceRequester      // slices.go
	SliceLister         // serve.go: the summary's
	SliceServer         // serve.go
	Liqo0xAuthenticator // liqo0x.go
	OverviewBackend     // overview_backend.go
}

// Liqo0xOptions are the admin's choices for a Liqo 0.x authentication.
type Liqo0xOptions struct {
	// Peer enables outgoing peering on a Liqo 0.x consumer's
	// ForeignCluster (off: authentication only).
	Peer bool
	// Reissue: the provider already issued this consumer's one identity
	// and the admin agreed to delete it there (automated flow only).
	Reissue bool
}

// Liqo0xResult is what a Liqo 0.x authentication left on the consumer.
type Liqo0xResult struct {
	ConsumerID, ProviderID string
	// ByTool: this tool was the 0.x consumer (no Liqo on the consumer);
	// else the consumer's Liqo 0.x authenticated.
	ByTool bool
	// AlreadyAuthenticated: the consumer held an identity for this
	// provider: Liqo reused it and never sent the token.
	AlreadyAuthenticated bool
	// IdentitySecret is namespace/name of the identity on the consumer
	// (liqo-identity-*, or the kubeconfig Secret this tool wrote).
	IdentitySecret string
	// User and Groups are who the identity authenticates as on the provider.
	User   string
	Groups []string
	// Issued and NotAfter bound the identity's certificate (zero if unknown).
	Issued, NotAfter time.Time
	// TLSVerified: the provider's auth server certificate was verified
	// (false: skipped, as Liqo does by default).
	TLSVerified bool
	// AuthenticationDisabled: the provider accepts any token.
	AuthenticationDisabled bool
}

// SliceRequest asks a provider for resources with a ResourceSlice created
// on the consumer (§10.1).
type SliceRequest struct {
	Name       string
	ProviderID string
	// Class is the slice's class ("" = default, handled by Liqo itself).
	Class string
	// CPU, Memory and Pods are Kubernetes quantities; "" leaves the
	// amount to the provider.
	CPU, Memory, Pods string
	// Provider is the provider's cluster when this workstation reaches it
	// too (automated mode; nil otherwise): its side is then served
	// in-process when no controller runs there, as in Authenticate.
	Provider *ClusterRef
}

// SliceInfo is one of the consumer's ResourceSlices and the provider's
// answer to it.
type SliceInfo = handshake.SliceStatus

// ProviderSlices is what serves a provider and the copies of one
// consumer's ResourceSlices it holds, with its answers.
type ProviderSlices = handshake.ProviderSlices

// Failure is an error the backend explained: the reason in one line and
// what the admin can do about it (flows.Explain's).
type Failure = handshake.Failure

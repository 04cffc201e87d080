// Package tui is the interactive wizard of liqo-auth-tui. It talks to the
// clusters only through the Backend interface (implemented with flows and kube
// by cmd/liqo-auth-tui/wizardbackend), so this package stays free of client-go and can be
// tested with a fake backend.
package tui

import (
	"context"
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

// Backend is everything the wizard needs from the clusters, one interface
// per part of the wizard, so that a new screen names the part it uses and a
// fake implements only that. Every method may block on the network: the
// wizard calls them only inside tea.Cmds.
type Backend interface {
	DetectBackend
	HandshakeBackend
	SlicesBackend
	AdvertiseBackend
	Liqo0xBackend
	// The peerings this cluster already has, and what to do about them.
	OverviewBackend
}

// DetectBackend is what the start and detect screens read and prepare:
// the clusters, their probe, init and the controller's install.
type DetectBackend interface {
	// Contexts lists the contexts of a kubeconfig ("" = KUBECONFIG or
	// ~/.kube/config) and its current context.
	Contexts(ctx context.Context, kubeconfig string) (contexts []string, current string, err error)
	// Probe checks reachability and authentication and reads what the
	// handshake needs; a failure is one classified line.
	Probe(ctx context.Context, c ClusterRef) (*ClusterInfo, error)
	// PairProblem says in one line why the consumer and the provider
	// cannot authenticate (their Liqo generations) and what to do; "" = they
	// can. It reads only its arguments (no network): View may call it.
	PairProblem(consumer, provider *ClusterInfo) string
	// Init prepares a cluster without Liqo (cluster ID, keys, CRDs, roles).
	// Init, InstallController and Verify report their step to sink.
	Init(ctx context.Context, c ClusterRef, sink handshake.Sink) (*InitResult, error)
	// InstallController installs this project's in-cluster controller
	// (CRDs, consumer ClusterRoles, ServiceAccount, RBAC, Deployment) with
	// image ("" = the default). It serves the cluster only once its Pods
	// run. On failure the result (if not nil) lists what was applied before.
	InstallController(ctx context.Context, c ClusterRef, image string, sink handshake.Sink) (*InstallResult, error)
	// Peers lists the clusters this one has handshake objects for, in role.
	Peers(ctx context.Context, c ClusterRef, role handshake.Role) ([]Peer, error)
	// Stage tells how far the handshake with peer got on this cluster.
	Stage(ctx context.Context, c ClusterRef, role handshake.Role, peerID string) (handshake.Stage, error)
}

// HandshakeBackend is the v1 handshake: automated, and each manual step
// with its artifact's check (the peer, run, receive and hand-off screens).
type HandshakeBackend interface {
	// Authenticate runs the automated flow (both clusters reachable).
	Authenticate(ctx context.Context, consumer, provider ClusterRef, sink handshake.Sink) (*AuthResult, error)

	// CheckClusterID refuses what is not a cluster ID, with the words the
	// commands use for the same value (no network).
	CheckClusterID(id string) error

	// Provider, manual mode.
	CreateNonce(ctx context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error)
	CheckTenant(ctx context.Context, provider ClusterRef, data []byte) (*Artifact, error)
	ApplyTenant(ctx context.Context, provider ClusterRef, data []byte, sink handshake.Sink) (*Artifact, error)
	GenerateIdentity(ctx context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error)
	// GeneratePeeringUser makes the peering user of consumerID (§9.4): a
	// Sensitive KindPeeringUser Artifact, its kubeconfig, with which the
	// consumer's admin runs the automated flow alone.
	GeneratePeeringUser(ctx context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error)

	// Consumer, manual mode. An empty nonce reuses the one already signed.
	CheckNonce(data []byte) (*Artifact, error)
	GenerateTenant(ctx context.Context, consumer ClusterRef, providerID, nonce string, sink handshake.Sink) (*Artifact, error)
	CheckIdentity(ctx context.Context, consumer ClusterRef, data []byte) (*Artifact, error)
	ApplyIdentity(ctx context.Context, consumer ClusterRef, data []byte, sink handshake.Sink) (*AuthResult, error)
	Verify(ctx context.Context, consumer ClusterRef, providerID string, sink handshake.Sink) (*Verification, error)
}

// SlicesBackend is the slices screen's and the serving summary's.
type SlicesBackend interface {
	// Consumer, resources (§10.1): after the handshake, the consumer asks
	// the provider for resources with a ResourceSlice.
	// CheckSliceRequest validates a request as the API server would (no
	// network): the first bad field as a *handshake.FieldError.
	CheckSliceRequest(req SliceRequest) error
	// RequestResources creates (or updates) the ResourceSlice on the
	// consumer and waits for the provider's answer.
	RequestResources(ctx context.Context, consumer ClusterRef, req SliceRequest, sink handshake.Sink) (*SliceInfo, error)
	// ResourceSlices lists the consumer's ResourceSlices with providerID.
	ResourceSlices(ctx context.Context, consumer ClusterRef, providerID string) ([]SliceInfo, error)
	// SliceAnswerer tells, writing nothing, who answers the consumer's
	// ResourceSlices on providerID: with provider (automated mode), what
	// serves its side or this wizard in-process; else what the consumer's
	// credentials for the provider can see (whether Liqo runs there).
	SliceAnswerer(ctx context.Context, consumer ClusterRef, providerID string, provider *ClusterRef) (handshake.SliceAnswer, error)
	// ServeSlices serves provider while ctx lives when nothing else does
	// (in-process, with every reconciler: the consumer's requests for
	// resources are answered meanwhile), and reports what serves it, then
	// the copies of consumerID's ResourceSlices whenever they change. It
	// returns nil once ctx ends, or why serving stopped.
	ServeSlices(ctx context.Context, provider ClusterRef, consumerID string, report func(ProviderSlices)) error
}

// AdvertiseBackend is the advertise screen's (advertise.go).
type AdvertiseBackend interface {
	// Provider, before its Identity is generated (advertise.go).
	// Advertised tells the API server and CA the consumer consumerID will
	// be told to reach provider at; nil: nothing the admin could act on.
	Advertised(ctx context.Context, provider ClusterRef, consumerID string) (*Advertisement, error)
	// SetAdvertised changes them for consumerID: kept for the runs that
	// follow and, when the provider already accepted its Tenant, applied to
	// it at once (so renewals keep them). Refused when real Liqo serves the
	// provider.
	SetAdvertised(ctx context.Context, provider ClusterRef, consumerID string, edit AdvertiseEdit, sink handshake.Sink) (*Advertisement, error)
}

// Liqo0xBackend is Liqo 0.x's screens' (liqo0x*.go).
type Liqo0xBackend interface {
	// Liqo 0.x providers (liqo0x.go): the shared-token authentication.
	// PeerInfo gathers the provider's peer info (ID, name, auth URL,
	// token): a Masked KindPeerInfo Artifact.
	PeerInfo(ctx context.Context, provider ClusterRef, sink handshake.Sink) (*Artifact, error)
	// CheckPeerInfo validates pasted peer info for consumer: no write.
	CheckPeerInfo(ctx context.Context, consumer ClusterRef, data []byte) (*Artifact, error)
	// ApplyPeerInfo authenticates consumer with the 0.x provider the peer
	// info names: through the consumer's own Liqo 0.x, or with this tool as
	// the 0.x consumer when the consumer has no Liqo.
	ApplyPeerInfo(ctx context.Context, consumer ClusterRef, data []byte, o Liqo0xOptions, sink handshake.Sink) (*Liqo0xResult, error)
	// AuthenticateLiqo0x is the automated 0.x flow (both reachable).
	AuthenticateLiqo0x(ctx context.Context, consumer, provider ClusterRef, o Liqo0xOptions, sink handshake.Sink) (*Liqo0xResult, error)
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

// Package wizardbackend is the wizard's backend: it implements tui.Backend
// by mapping flows' results onto tui's types, so that the wizard itself
// never imports client-go.
package wizardbackend

import (
	"context"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// Backend implements tui.Backend with flows.
type Backend struct {
	stepTimeout time.Duration
	engine      flows.EngineOptions
	// proxyURL is what the consumer's Tenant asks the provider to
	// advertise (spec.proxyURL, §5.2); how the wizard itself reaches a
	// cluster is its ClusterRef's ProxyURL.
	proxyURL string
	// skipPodReachCheck: the flows that give the consumer an Identity do
	// not dial the advertised address from one of its Pods first.
	skipPodReachCheck bool
	// snapshots are what the overview's watches read, for Diagnose
	// (doctor.go).
	snapshots snapshots
}

var _ tui.Backend = (*Backend)(nil)

// New is the wizard's backend: each step is bounded by stepTimeout, and
// engine says who serves a side that has no controller.
func New(stepTimeout time.Duration, engine flows.EngineOptions) *Backend {
	return &Backend{stepTimeout: stepTimeout, engine: engine}
}

// StepTimeout is what bounds each step's wait.
func (b *Backend) StepTimeout() time.Duration { return b.stepTimeout }

// WithProxy makes the Tenants this backend generates carry proxyURL (the
// wizard's --proxy-url).
func (b *Backend) WithProxy(proxyURL string) *Backend {
	b.proxyURL = proxyURL
	return b
}

// WithPodReachCheck says whether the flows dial the advertised address
// from a Pod of the consumer before they write (the wizard's
// --skip-pod-reach-check turns it off).
func (b *Backend) WithPodReachCheck(check bool) *Backend {
	b.skipPodReachCheck = !check
	return b
}

func (b *Backend) connect(ref tui.ClusterRef) (*flows.Cluster, error) {
	return flows.Connect(flowsRef(ref))
}

// flowsRef is the wizard's reference to a cluster as flows takes it.
func flowsRef(ref tui.ClusterRef) flows.ClusterRef {
	return flows.ClusterRef{Kubeconfig: ref.Kubeconfig, Context: ref.Context, Namespace: ref.Namespace, ProxyURL: ref.ProxyURL}
}

// connectPair connects both sides of an automated flow; a failure is
// explained with the side it happened on.
func (b *Backend) connectPair(consumer, provider tui.ClusterRef) (c, p *flows.Cluster, err error) {
	if c, err = b.connect(consumer); err != nil {
		return nil, nil, explainScoped(handshake.Local, err)
	}
	if p, err = b.connect(provider); err != nil {
		return nil, nil, explainScoped(handshake.Remote, err)
	}
	return c, p, nil
}

// Contexts lists a kubeconfig's contexts with kubectl's loading rules.
func (b *Backend) Contexts(_ context.Context, kubeconfig string) ([]string, string, error) {
	return flows.KubeconfigContexts(kubeconfig)
}

func (b *Backend) Probe(ctx context.Context, ref tui.ClusterRef) (*tui.ClusterInfo, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	info, err := flows.Probe(ctx, c)
	if err != nil {
		return nil, err
	}
	return &tui.ClusterInfo{Server: info.APIServer, Context: flows.ContextOf(c), User: info.User, Groups: info.Groups,
		ClusterID: info.ClusterID, LiqoInstalled: info.LiqoInstalled, Controller: info.Controller, Restricted: info.Restricted,
		KeyAlgorithm: info.KeyAlgorithm, KeyFingerprint: info.KeyFingerprint,
		LiqoFlavor: string(info.Flavor), LiqoVersion: info.Version, LiqoLine: string(info.Line),
		FlavorLine: flows.FlavorLine(info), Liqo0x: flows.RunsLiqo0x(info.LiqoRelease), Unsupported: flows.Liqo0xUnsupported(info.LiqoRelease),
		Route:              flows.AuthenticationRoute(info.LiqoRelease),
		Liqo0xAuthDisabled: info.AuthenticationDisabled}, nil
}

func (b *Backend) Init(ctx context.Context, ref tui.ClusterRef, sink handshake.Sink) (*tui.InitResult, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	res, err := flows.Init(ctx, c, flows.InitOptions{}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	out := &tui.InitResult{ClusterID: res.ClusterID, LiqoInstalled: res.LiqoInstalled}
	for _, ch := range res.Changes {
		out.Changes = append(out.Changes, ch.String())
	}
	return out, nil
}

// InstallController applies the controller manifests, as `install
// controller` does. The changes made before a failure come back with it.
func (b *Backend) InstallController(ctx context.Context, ref tui.ClusterRef, image string, sink handshake.Sink) (*tui.InstallResult, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	res, err := flows.InstallController(ctx, c, flows.InstallControllerOptions{Image: image}, sink)
	return res, explainErr(err)
}

// Peers lists the tenant namespaces' remote clusters with their stage.
func (b *Backend) Peers(ctx context.Context, ref tui.ClusterRef, role handshake.Role) ([]tui.Peer, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	list, err := peerings.Peers(ctx, c, role)
	if err != nil {
		return nil, explainErr(err)
	}
	return list, nil
}

// Stage reads how far the handshake with peerID got (the stages --batch
// resumes from).
func (b *Backend) Stage(ctx context.Context, ref tui.ClusterRef, role handshake.Role, peerID string) (handshake.Stage, error) {
	c, err := b.connect(ref)
	if err != nil {
		return handshake.StageCreateNonce, err
	}
	st, err := peerings.StageOf(ctx, c, role, peerID)
	if err != nil {
		return "", explainErr(err)
	}
	return st, nil
}

func (b *Backend) Authenticate(ctx context.Context, consumer, provider tui.ClusterRef, sink handshake.Sink) (*tui.AuthResult, error) {
	cc, pc, err := b.connectPair(consumer, provider)
	if err != nil {
		return nil, err
	}
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: cc, Provider: pc, ProxyURL: b.proxyURL, SkipPodReachCheck: b.skipPodReachCheck,
		StepTimeout: b.stepTimeout, Engine: b.engine}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return &tui.AuthResult{ConsumerID: res.ConsumerID, ProviderID: res.ProviderID,
		Identity:         res.Identity.Namespace + "/" + res.Identity.Name,
		KubeconfigSecret: res.KubeconfigSecret, ConsumerFingerprint: res.ConsumerFingerprint,
		CertificateExpiry: artifact.CertificateNotAfter(res.Identity)}, nil
}

func (b *Backend) Verify(ctx context.Context, consumer tui.ClusterRef, providerID string, sink handshake.Sink) (*tui.Verification, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	v, err := flows.Verify(ctx, c, providerID, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return v, nil
}

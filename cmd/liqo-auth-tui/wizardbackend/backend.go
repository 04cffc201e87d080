// Package wizardbackend is the wizard's backend: it implements tui.Backend
// with flows and kube, so that the wizard itself never imports client-go.
package wizardbackend

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// Backend implements tui.Backend with flows and kube.
type Backend struct {
	stepTimeout time.Duration
	engine      flows.EngineOptions
}

var _ tui.Backend = (*Backend)(nil)

// New is the wizard's backend: each step is bounded by stepTimeout, and
// engine says who serves a side that has no controller.
func New(stepTimeout time.Duration, engine flows.EngineOptions) *Backend {
	return &Backend{stepTimeout: stepTimeout, engine: engine}
}

func expandHome(path string) string {
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, path[2:])
		}
	}
	return path
}

func (b *Backend) connect(ref tui.ClusterRef) (*kube.Cluster, error) {
	return kube.Connect(kube.KubeconfigOptions{Path: expandHome(ref.Kubeconfig), Context: ref.Context, LiqoNamespace: ref.Namespace})
}

// Contexts lists a kubeconfig's contexts with kubectl's loading rules.
func (b *Backend) Contexts(_ context.Context, kubeconfig string) ([]string, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = expandHome(kubeconfig)
	cfg, err := rules.Load()
	if err != nil {
		return nil, "", fmt.Errorf("reading kubeconfig (%s): %w", orDefaultKubeconfig(kubeconfig), err)
	}
	names := make([]string, 0, len(cfg.Contexts))
	for name := range cfg.Contexts {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, "", fmt.Errorf("kubeconfig (%s) has no contexts", orDefaultKubeconfig(kubeconfig))
	}
	return names, cfg.CurrentContext, nil
}

func orDefaultKubeconfig(path string) string {
	if path == "" {
		return "default kubeconfig"
	}
	return path
}

func (b *Backend) Probe(ctx context.Context, ref tui.ClusterRef) (*tui.ClusterInfo, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	info, err := c.Probe(ctx)
	if err != nil {
		return nil, err
	}
	return &tui.ClusterInfo{Server: info.APIServer, Context: c.Context, User: info.User, Groups: info.Groups,
		ClusterID: info.ClusterID, LiqoInstalled: info.LiqoInstalled, Controller: info.Controller,
		KeyAlgorithm: info.KeyAlgorithm, KeyFingerprint: info.KeyFingerprint}, nil
}

func (b *Backend) Init(ctx context.Context, ref tui.ClusterRef) (*tui.InitResult, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	res, err := c.Init(ctx, kube.InitOptions{})
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
func (b *Backend) InstallController(ctx context.Context, ref tui.ClusterRef, image string) (*tui.InstallResult, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	if image == "" {
		image = kube.ControllerImage
	}
	changes, err := c.InstallController(ctx, image)
	res := &tui.InstallResult{Image: image}
	for _, ch := range changes {
		if ch.Action == kube.Unchanged {
			res.Unchanged = append(res.Unchanged, ch.Object)
		} else {
			res.Changes = append(res.Changes, ch.String())
		}
	}
	if err == nil {
		return res, nil
	}
	if class, _ := kube.ClassifyError(err); class != kube.FailureOther {
		err = kube.Reach(c.Server, err)
	}
	e := explainErr(err)
	var f *tui.Failure
	if errors.As(e, &f) {
		partial := fmt.Sprintf("%d object(s) were applied before the failure (listed above); installing again applies the rest and leaves those unchanged", len(changes))
		if f.Hint == "" {
			f.Hint = partial + ". Installing needs the rights to create CRDs, ClusterRoles, RBAC and a Deployment"
		} else {
			f.Hint += "; " + partial
		}
	}
	return res, e
}

// Peers lists the tenant namespaces' remote clusters with their stage.
func (b *Backend) Peers(ctx context.Context, ref tui.ClusterRef, role handshake.Role) ([]tui.Peer, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: kube.TenantNamespaceLabel})
	if err != nil {
		return nil, kube.Reach(c.Server, err)
	}
	var peers []tui.Peer
	for _, ns := range list.Items {
		id := ns.Labels[kube.RemoteClusterIDLabel]
		if id == "" {
			continue
		}
		st, err := b.stage(ctx, c, role, id)
		if err != nil {
			return nil, err
		}
		peers = append(peers, tui.Peer{ID: id, Stage: st})
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].ID < peers[j].ID })
	return peers, nil
}

func (b *Backend) Stage(ctx context.Context, ref tui.ClusterRef, role handshake.Role, peerID string) (handshake.Stage, error) {
	c, err := b.connect(ref)
	if err != nil {
		return handshake.StageCreateNonce, err
	}
	return b.stage(ctx, c, role, peerID)
}

// stage reads how far the handshake with peerID got on c (the stages
// --batch resumes from).
func (b *Backend) stage(ctx context.Context, c *kube.Cluster, role handshake.Role, peerID string) (handshake.Stage, error) {
	read := flows.ConsumerStage
	if role == handshake.RoleProvider {
		read = flows.ProviderStage
	}
	st, err := read(ctx, c, peerID)
	if err != nil {
		return "", explainErr(err)
	}
	return st, nil
}

func (b *Backend) Authenticate(ctx context.Context, consumer, provider tui.ClusterRef, sink handshake.Sink) (*tui.AuthResult, error) {
	cc, err := b.connect(consumer)
	if err != nil {
		return nil, explainScoped(handshake.Local, err)
	}
	pc, err := b.connect(provider)
	if err != nil {
		return nil, explainScoped(handshake.Remote, err)
	}
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: cc, Provider: pc, StepTimeout: b.stepTimeout, Engine: b.engine}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return &tui.AuthResult{ConsumerID: res.ConsumerID, ProviderID: res.ProviderID,
		Identity:         res.Identity.Namespace + "/" + res.Identity.Name,
		KubeconfigSecret: res.KubeconfigSecret, ConsumerFingerprint: res.ConsumerFingerprint,
		CertificateExpiry: identityNotAfter(res.Identity)}, nil
}

func (b *Backend) CreateNonce(ctx context.Context, provider tui.ClusterRef, consumerID string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	nonce, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: c, ConsumerID: consumerID, StepTimeout: b.stepTimeout, Engine: b.engine}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	own, err := c.ClusterID(ctx)
	if err != nil {
		return nil, explainErr(err)
	}
	return &tui.Artifact{Kind: tui.KindNonce, Data: []byte(nonce + "\n"), FromID: own, ForID: consumerID}, nil
}

func (b *Backend) CheckNonce(data []byte) (*tui.Artifact, error) {
	nonce, err := flows.ParseNonce(data)
	if err != nil {
		return nil, err
	}
	return &tui.Artifact{Kind: tui.KindNonce, Data: []byte(nonce)}, nil
}

func tenantArtifact(t *authv1beta1.Tenant, data []byte, forID string) (*tui.Artifact, error) {
	var err error
	if data == nil {
		if data, err = flows.Encode(t, "yaml"); err != nil {
			return nil, err
		}
	}
	fp, err := flows.TenantFingerprint(t)
	if err != nil {
		return nil, fmt.Errorf("tenant spec.publicKey: %w", err)
	}
	return &tui.Artifact{Kind: tui.KindTenant, Data: data, Fingerprint: fp, FromID: t.Spec.ClusterID, ForID: forID}, nil
}

func identityArtifact(id *authv1beta1.Identity, data []byte) (*tui.Artifact, error) {
	var err error
	if data == nil {
		if data, err = flows.Encode(id, "yaml"); err != nil {
			return nil, err
		}
	}
	fp, err := flows.IdentityCAFingerprint(id)
	if err != nil {
		return nil, fmt.Errorf("identity authParams.ca: %w", err)
	}
	a := &tui.Artifact{Kind: tui.KindIdentity, Data: data, Fingerprint: fp, FromID: id.Spec.ClusterID,
		APIServer: id.Spec.AuthParams.APIServer, NotAfter: identityNotAfter(id)}
	if aws := id.Spec.AuthParams.AWSConfig; aws != nil {
		// EKS Identities carry AWS access keys: mask them on screen and
		// keep them off the clipboard.
		masked := id.DeepCopy()
		masked.Spec.AuthParams.AWSConfig.AWSAccessKeyID = mask(aws.AWSAccessKeyID)
		masked.Spec.AuthParams.AWSConfig.AWSSecretAccessKey = "********"
		preview, err := flows.Encode(masked, "yaml")
		if err != nil {
			return nil, err
		}
		a.Preview, a.Sensitive = string(preview), true
	}
	return a, nil
}

func mask(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return s[:4] + strings.Repeat("*", len(s)-4)
}

func (b *Backend) GenerateTenant(ctx context.Context, consumer tui.ClusterRef, providerID, nonce string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	t, err := flows.GenerateTenant(ctx, flows.ConsumerOptions{Consumer: c, ProviderID: providerID, Nonce: nonce, StepTimeout: b.stepTimeout, Engine: b.engine}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return tenantArtifact(t, nil, providerID)
}

func (b *Backend) CheckTenant(ctx context.Context, provider tui.ClusterRef, data []byte) (*tui.Artifact, error) {
	t, err := flows.DecodeTenant(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(provider)
	if err != nil {
		return nil, err
	}
	placed, err := flows.CheckTenant(ctx, c, t)
	if err != nil {
		return nil, err
	}
	return tenantArtifact(placed, data, "")
}

func (b *Backend) ApplyTenant(ctx context.Context, provider tui.ClusterRef, data []byte, sink handshake.Sink) (*tui.Artifact, error) {
	t, err := flows.DecodeTenant(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	applied, err := flows.ApplyTenant(ctx, flows.ProviderOptions{Provider: c, ConsumerID: t.Spec.ClusterID, StepTimeout: b.stepTimeout, Engine: b.engine}, t, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return tenantArtifact(applied, data, "")
}

func (b *Backend) GenerateIdentity(ctx context.Context, provider tui.ClusterRef, consumerID string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	ev := handshake.Event{Kind: handshake.StepStarted, Step: "generate-identity", Index: 1, Total: 1, Scope: handshake.Local, Time: time.Now(),
		Message: "Generating identity", Command: "liqoctl generate identity --remote-cluster-id " + consumerID}
	sink(ev)
	start := time.Now()
	id, err := flows.GenerateIdentity(ctx, c, consumerID, "")
	ev.Elapsed, ev.Time = time.Since(start), time.Now()
	if err != nil {
		ev.Kind, ev.Err, ev.Message = handshake.StepFailed, err, "An error occurred while generating identity: "+err.Error()
		sink(ev)
		return nil, explainErr(err)
	}
	ev.Kind, ev.Message = handshake.StepDone, "Identity correctly generated (API server "+id.Spec.AuthParams.APIServer+")"
	sink(ev)
	return identityArtifact(id, nil)
}

func (b *Backend) CheckIdentity(ctx context.Context, consumer tui.ClusterRef, data []byte) (*tui.Artifact, error) {
	id, err := flows.DecodeIdentity(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(consumer)
	if err != nil {
		return nil, err
	}
	placed, err := flows.CheckIdentity(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return identityArtifact(placed, data)
}

func (b *Backend) ApplyIdentity(ctx context.Context, consumer tui.ClusterRef, data []byte, sink handshake.Sink) (*tui.AuthResult, error) {
	id, err := flows.DecodeIdentity(data)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	applied, err := flows.ApplyIdentity(ctx, flows.ConsumerOptions{Consumer: c, ProviderID: id.Spec.ClusterID, StepTimeout: b.stepTimeout, Engine: b.engine}, id, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	own, err := c.ClusterID(ctx)
	if err != nil {
		return nil, explainErr(err)
	}
	res := &tui.AuthResult{ConsumerID: own, ProviderID: id.Spec.ClusterID, Identity: applied.Namespace + "/" + applied.Name,
		CertificateExpiry: identityNotAfter(applied)}
	if ref := applied.Status.KubeconfigSecretRef; ref != nil {
		res.KubeconfigSecret = applied.Namespace + "/" + ref.Name
	}
	if pub, _, err := c.PublicKey(ctx); err == nil {
		res.ConsumerFingerprint, _ = authcrypto.Fingerprint(pub)
	}
	return res, nil
}

func (b *Backend) Verify(ctx context.Context, consumer tui.ClusterRef, providerID string) (*tui.Verification, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	v, err := flows.Verify(ctx, c, providerID)
	if err != nil {
		return nil, explainErr(err)
	}
	out := &tui.Verification{Server: v.Server, TenantNamespace: v.TenantNamespace, User: v.User, Groups: v.Groups, Allowed: v.Allowed, Denied: v.Denied}
	// The expiry is a bonus: an Identity that cannot be read leaves it unknown.
	if id, err := c.ControlPlaneIdentityFor(ctx, providerID); err == nil {
		out.CertificateExpiry = identityNotAfter(id)
	}
	return out, nil
}

// identityNotAfter is the notAfter of an Identity's signed certificate (the
// first of its PEM chain); zero when there is none or it does not parse.
func identityNotAfter(id *authv1beta1.Identity) time.Time {
	if id == nil {
		return time.Time{}
	}
	rest := id.Spec.AuthParams.SignedCRT
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return time.Time{}
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return time.Time{}
		}
		return cert.NotAfter
	}
}

func explainScoped(scope handshake.Scope, err error) error {
	e := explainErr(err)
	var f *tui.Failure
	if errors.As(e, &f) {
		f.Scope = scope
		f.Reason = "(" + string(scope) + ") " + f.Reason
	}
	return e
}

// explainErr turns a flow error into a tui.Failure: the one-line reason and
// what to do, from the controller Warning, the reachability class or the
// timeout behind it.
func explainErr(err error) error {
	if err == nil {
		return nil
	}
	f := &tui.Failure{Reason: err.Error(), Err: err}
	var se *flows.StepError
	if errors.As(err, &se) {
		f.Reason, f.Scope = se.Line, handshake.Scope(se.Scope)
	}
	var warn *flows.WarningError
	var reach *kube.ReachError
	switch {
	case errors.As(err, &warn):
		f.Hint = warn.Hint
	case errors.As(err, &reach):
		f.Hint = reach.Hint
		f.Timeout = reach.Class == kube.FailureTimeout
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, kube.ErrWaitTimeout) {
		f.Timeout = true
		if f.Hint == "" {
			f.Hint = "a wait ran into its timeout: check that the controllers run (the wizard starts in-process ones when a cluster has none) and the events above, then retry; raise --timeout for slow clusters"
		}
	}
	return f
}

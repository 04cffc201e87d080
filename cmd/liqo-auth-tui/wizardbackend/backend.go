// Package wizardbackend is the wizard's backend: it implements tui.Backend
// with flows and kube, so that the wizard itself never imports client-go.
package wizardbackend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// Backend implements tui.Backend with flows and kube.

type Backend struct {
	stepTimeout time.Duration
	engine      flows.EngineOptions
	// proxyURL is what the consumer's Tenant asks the provider to
	// advertise (spec.proxyURL, §5.2); how the wizard itself reaches a
	// cluster is its ClusterRef's ProxyURL.
	proxyURL string
}

var _ tui.Backend = (*Backend)(nil)

// New is the wizard's backend: each step is bounded by stepTimeout, and

// engine says who serves a side that has no controller.

func New(stepTimeout time.Duration, engine flows.EngineOptions) *Backend {
	return &Backend{stepTimeout: stepTimeout, engine: engine}
}

// WithProxy makes the Tenants this backend generates carry proxyURL (the
// wizard's --proxy-url).
func (b *Backend) WithProxy(proxyURL string) *Backend {
	b.proxyURL = proxyURL
	return b
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
	return kube.Connect(kube.KubeconfigOptions{Path: expandHome(ref.Kubeconfig), Context: ref.Context, LiqoNamespace: ref.Namespace,
		ProxyURL: ref.ProxyURL})
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
		ClusterID: info.ClusterID, LiqoInstalled: info.LiqoInstalled, Controller: info.Controller, Restricted: info.Restricted,
		KeyAlgorithm: info.KeyAlgorithm, KeyFingerprint: info.KeyFingerprint,
		LiqoGeneration: string(info.Flavor), LiqoVersion: info.Version, LiqoLine: string(info.Line),
		LegacyAuthDisabled: info.AuthenticationDisabled}, nil
}

func (b *Backend) Init(ctx context.Context, ref tui.ClusterRef, sink handshake.Sink) (*tui.InitResult, error) {
	c, err := b.connect(ref)
	if err != nil {
		return nil, err
	}
	res, err := flows.Init(ctx, c, kube.InitOptions{}, sink)
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
	if image == "" {
		image = kube.ControllerImage
	}
	changes, err := flows.InstallController(ctx, c, image, sink)
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
		err = c.Reach(err)
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
		return nil, c.Reach(err)
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
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: cc, Provider: pc, ProxyURL: b.proxyURL,
		StepTimeout: b.stepTimeout, Engine: b.engine}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return &tui.AuthResult{ConsumerID: res.ConsumerID, ProviderID: res.ProviderID,
		Identity:         res.Identity.Namespace + "/" + res.Identity.Name,
		KubeconfigSecret: res.KubeconfigSecret, ConsumerFingerprint: res.ConsumerFingerprint,
		CertificateExpiry: identityNotAfter(res.Identity)}, nil
}

func (b *Backend) Verify(ctx context.Context, consumer tui.ClusterRef, providerID string, sink handshake.Sink) (*tui.Verification, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	v, err := flows.CheckAccess(ctx, c, providerID, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	out := &tui.Verification{Server: v.Server, TenantNamespace: v.TenantNamespace, User: v.User, Groups: v.Groups, Allowed: v.Allowed, Denied: v.Denied,
		CertificateExpiry: v.CertificateNotAfter, LastRenewal: v.LastRenewal}
	// The expiry is a bonus: an Identity that cannot be read leaves it unknown.
	if id, err := c.ControlPlaneIdentityFor(ctx, providerID); err == nil && out.CertificateExpiry.IsZero() {
		out.CertificateExpiry = identityNotAfter(id)
	}
	return out, nil
}

package tui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// fakeBackend implements Backend without any cluster: the UI boundary.
type fakeBackend struct {
	mu       sync.Mutex
	calls    []string
	infos    map[string]*ClusterInfo // by context
	probeErr map[string]error
	contexts map[string][]string // by kubeconfig path
	current  string
	stages   map[string]handshake. // by role+"/"+peer
			Stage
	peers     []Peer
	failOp    map[string]error
	panicOp   map[string]any // a backend call that panics with that value
	noncePeer string
	// lastRenewal is what Verify reports; slices are the consumer's
	// ResourceSlices (RequestResources adds to them), and sliceDenial, when
	// set, is the provider's reason to deny the next requests.
	lastRenewal time.Time
	slices      []SliceInfo
	sliceDenial string
	// answerer is who answers a request without the provider at hand
	// (with it: in-process); serveStates are what ServeSlices reports, in
	// order, before it returns serveErr.
	answerer    handshake.Answerer
	serveStates []ProviderSlices
	serveErr    error
	// serveBlock: ServeSlices then serves until its context ends, and
	// records "ServeSlices stopped".
	serveBlock bool
	// advertisement is what Advertised answers; nil answers nil without
	// recording the call (nothing to confirm: the flows of other tests).
	advertisement *Advertisement
	edits         []AdvertiseEdit
	// pairProblems is what PairProblem answers, by consumerID/providerID.
	pairProblems map[string]string
	// liqo0x scripts the Liqo 0.x methods (liqo0x_fake_test.go).
	liqo0x liqo0xFake
	// overview scripts the overview's methods (overview_fake_test.go).
	overview overviewFake
}

const (
	fakeNonce    = "aGVsbG8tbm9uY2UtMTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw"
	tenantYAML   = "apiVersion: authentication.liqo.io/v1beta1\nkind: Tenant\nmetadata:\n  name: consumer-1\nspec:\n  clusterID: consumer-1\n  csr: LS0tLS1CRUdJTi\n  publicKey: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0K\n  signature: c2lnbmF0dXJl\n"
	identityYAML = "apiVersion: authentication.liqo.io/v1beta1\nkind: Identity\nmetadata:\n  name: controlplane-provider-1\nspec:\n  clusterID: provider-1\n  type: ControlPlane\n  authParams:\n    apiServer: https://provider.example:6443\n    ca: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    signedCRT: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n"
	fpConsumer   = "SHA256:4f:1c:9a:77:e2:0b:33:aa"
	fpCA         = "SHA256:9e:02:bb:14:6d:c8:f1:07"
)

func newFake() *fakeBackend {
	return &fakeBackend{
		infos: map[string]*ClusterInfo{
			"consumer": {Server: "https://127.0.0.1:6443", Context: "consumer", User: "kubernetes-admin", Groups: []string{"system:masters"},
				ClusterID: "consumer-1", KeyAlgorithm: "ed25519", KeyFingerprint: fpConsumer},
			"provider": {Server: "https://127.0.0.1:7443", Context: "provider", User: "kubernetes-admin", Groups: []string{"system:masters"},
				ClusterID: "provider-1", KeyAlgorithm: "ed25519", KeyFingerprint: "SHA256:aa:bb:cc:dd"},
		},
		probeErr: map[string]error{},
		contexts: map[string][]string{"": {"consumer", "provider"}},
		current:  "consumer",
		stages:   map[string]handshake.Stage{},
		failOp:   map[string]error{},
	}
}

func (f *fakeBackend) record(format string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	call := fmt.Sprintf(format, args...)
	f.calls = append(f.calls, call)
	name, _, _ := strings.Cut(call, " ")
	if v := f.panicOp[name]; v != nil {
		panic(v)
	}
	return f.failOp[name]
}

func (f *fakeBackend) called(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == name || strings.HasPrefix(c, name+" ") {
			return true
		}
	}
	return false
}

func (f *fakeBackend) Contexts(_ context.Context, kubeconfig string) ([]string, string, error) {
	if err := f.record("Contexts %s", kubeconfig); err != nil {
		return nil, "", err
	}
	c, ok := f.contexts[kubeconfig]
	if !ok {
		return nil, "", fmt.Errorf("reading kubeconfig (%s): no such file", kubeconfig)
	}
	return c, f.current, nil
}

func (f *fakeBackend) Probe(_ context.Context, c ClusterRef) (*ClusterInfo, error) {
	if err := f.record("Probe %s", c.Context); err != nil {
		return nil, err
	}
	if err := f.probeErr[c.Context]; err != nil {
		return nil, err
	}
	info, ok := f.infos[c.Context]
	if !ok {
		return nil, errors.New("cannot use the API server https://nowhere:6443: DNS: no such host (check the server address in the kubeconfig and your DNS)")
	}
	cp := *info
	fakeGeneration(&cp)
	return &cp, nil
}

// fakeGeneration fills what the real backend works out from a release
// (flows.FlavorLine and friends) in words of the fake's own, so that
// the tests set only LiqoFlavor, LiqoVersion and LiqoLine.
func fakeGeneration(info *ClusterInfo) {
	info.Liqo0x = info.LiqoFlavor == "0.x"
	switch {
	case info.Liqo0x:
		info.FlavorLine = "Liqo 0.x (" + orDefault(info.LiqoVersion, "fake version") + ")"
	case info.LiqoFlavor != "":
		info.FlavorLine = "generation " + info.LiqoFlavor
	}
	info.Route = handshake.RouteV1
	if info.Liqo0x {
		info.Route = handshake.RouteLiqo0x
	}
	if info.Liqo0x && info.LiqoLine == "v0.2" {
		info.Unsupported = "this cluster runs Liqo " + info.LiqoVersion + ": not supported (fake)"
	}
}

func (f *fakeBackend) PairProblem(consumer, provider *ClusterInfo) string {
	return f.pairProblems[consumer.ClusterID+"/"+provider.ClusterID]
}

func (f *fakeBackend) Init(_ context.Context, c ClusterRef, sink handshake.Sink) (*InitResult, error) {
	if err := f.record("Init %s", c.Context); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "init")
	f.mu.Lock()
	defer f.mu.Unlock()
	info := f.infos[c.Context]
	info.ClusterID, info.KeyAlgorithm, info.KeyFingerprint = c.Context+"-1", "ed25519", "SHA256:00:11"
	return &InitResult{ClusterID: info.ClusterID, Changes: []string{"Namespace liqo created", "Secret liqo/authentication-keys created"}}, nil
}

// installChanges is what the fake's InstallController applies.
var installChanges = []string{
	"ClusterRole liqo-auth-controller created",
	"ServiceAccount liqo-auth-controller created",
	"Deployment liqo-auth-controller created",
}

func (f *fakeBackend) InstallController(_ context.Context, c ClusterRef, image string, sink handshake.Sink) (*InstallResult, error) {
	unchanged := []string{"Namespace liqo", "CustomResourceDefinition tenants.authentication.liqo.io"}
	if err := f.record("InstallController %s %s", c.Context, image); err != nil {
		sink(handshake.Event{Kind: handshake.StepFailed, Step: "install-controller", Scope: handshake.Local, Message: "Installing the controller failed: " + err.Error(), Err: err})
		// Like the real one: what was applied before the failure comes back.
		return &InstallResult{Image: image, Unchanged: unchanged}, err
	}
	if image == "" {
		image = "ghcr.io/liqo-auth-tui/liqo-auth-controller:latest"
	}
	// Like flows.InstallController: the step, a note per change, one for
	// what was unchanged, then the image in the success line.
	ev := handshake.Event{Kind: handshake.StepStarted, Step: "install-controller", Index: 1, Total: 1, Scope: handshake.Local,
		Message: "Applying the controller manifests", Command: "liqo-auth-tui install controller --image " + image}
	sink(ev)
	for _, ch := range installChanges {
		sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: ch})
	}
	sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: fmt.Sprintf("%d unchanged: %s", len(unchanged), strings.Join(unchanged, ", "))})
	ev.Kind, ev.Message = handshake.StepDone, "Controller installed ("+image[strings.LastIndex(image, "/")+1:]+")"
	sink(ev)
	// As on a cluster without a Ready Node: the Pods do not run, the
	// probe still finds no controller.
	return &InstallResult{Image: image, Changed: installChanges, Unchanged: unchanged, NoReadyNode: true}, nil
}

func (f *fakeBackend) Peers(_ context.Context, c ClusterRef, role handshake.Role) ([]Peer, error) {
	return f.peers, f.record("Peers %s %s", c.Context, role)
}

func (f *fakeBackend) Stage(_ context.Context, c ClusterRef, role handshake.Role, peerID string) (handshake.Stage, error) {
	if err := f.record("Stage %s %s %s", c.Context, role, peerID); err != nil {
		return handshake.StageCreateNonce, err
	}
	return f.stages[string(role)+"/"+peerID], nil
}

func steps(sink handshake.Sink, scope handshake.Scope, names ...string) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i, n := range names {
		sink(handshake.Event{Kind: handshake.StepStarted, Step: n, Index: i + 1, Total: len(names), Scope: scope, Message: n, Command: "kubectl " + n, Time: t0})
		sink(handshake.Event{Kind: handshake.StepDone, Step: n, Index: i + 1, Total: len(names), Scope: scope, Message: n + " done", Elapsed: 100 * time.Millisecond, Time: t0})
	}
}

func (f *fakeBackend) Authenticate(_ context.Context, consumer, provider ClusterRef, sink handshake.Sink) (*AuthResult, error) {
	if err := f.record("Authenticate %s %s", consumer.Context, provider.Context); err != nil {
		sink(handshake.Event{Kind: handshake.StepFailed, Step: "wait-tenant-status", Scope: handshake.Remote, Message: "Failed waiting for tenant status: " + err.Error(), Err: err})
		return nil, err
	}
	steps(sink, handshake.Local, "cluster-ids", "tenant-namespace-local")
	sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: "provider side served by in-process controller"})
	sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: handshake.Remote, Reason: "TenantAccepted", Message: "Tenant consumer-1: accepted"})
	return &AuthResult{ConsumerID: "consumer-1", ProviderID: "provider-1", Identity: "liqo-tenant-provider-1/controlplane-provider-1",
		KubeconfigSecret: "liqo-tenant-provider-1/kubeconfig-controlplane-provider-1", ConsumerFingerprint: fpConsumer,
		CertificateExpiry: fakeExpiry}, nil
}

func (f *fakeBackend) CreateNonce(_ context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error) {
	if err := f.record("CreateNonce %s %s", provider.Context, consumerID); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "cluster-id", "nonce-secret", "wait-nonce")
	return &Artifact{Kind: handshake.KindNonce, Data: []byte(fakeNonce + "\n"), FromID: "provider-1", ForID: consumerID}, nil
}

func (f *fakeBackend) CheckTenant(_ context.Context, provider ClusterRef, data []byte) (*Artifact, error) {
	if err := f.record("CheckTenant %s", provider.Context); err != nil {
		return nil, err
	}
	if !strings.Contains(string(data), "kind: Tenant") {
		return nil, errors.New("input is Identity, expected a Tenant")
	}
	if !strings.HasSuffix(strings.TrimSpace(string(data)), "c2lnbmF0dXJl") {
		return nil, errors.New("signature verification failed: the Tenant was not signed over this provider's (provider-1) current nonce for consumer-1")
	}
	return &Artifact{Kind: handshake.KindTenant, Data: data, Fingerprint: fpConsumer, FromID: "consumer-1"}, nil
}

func (f *fakeBackend) ApplyTenant(_ context.Context, provider ClusterRef, data []byte, sink handshake.Sink) (*Artifact, error) {
	if err := f.record("ApplyTenant %s", provider.Context); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "engine", "apply-tenant", "wait-tenant-status")
	return &Artifact{Kind: handshake.KindTenant, Data: data, Fingerprint: fpConsumer, FromID: "consumer-1"}, nil
}

func (f *fakeBackend) GenerateIdentity(_ context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error) {
	if err := f.record("GenerateIdentity %s %s", provider.Context, consumerID); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "generate-identity")
	return &Artifact{Kind: handshake.KindIdentity, Data: []byte(identityYAML), Fingerprint: fpCA, FromID: "provider-1", ForID: consumerID,
		APIServer: "https://provider.example:6443", NotAfter: fakeExpiry}, nil
}

// peeringUserKubeconfig is the fake's peering-user kubeconfig, and what
// it shows (the key and certificate masked).
const (
	peeringUserKubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://provider.example:6443\n  name: consumer-1\n" +
		"users:\n- name: consumer-1-user\n  user:\n    client-certificate-data: Q0VSVElGSUNBVEU=\n    client-key-data: UFJJVkFURSBLRVk=\n"
	peeringUserPreview = "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://provider.example:6443\n  name: consumer-1\n" +
		"users:\n- name: consumer-1-user\n  user:\n    client-certificate-data: DATA+OMITTED\n    client-key-data: REDACTED\n"
	peeringUserName = "liqo-peer-user-consumer-1-0123456789abcdef0123456789abcdef"
)

func (f *fakeBackend) GeneratePeeringUser(_ context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error) {
	if err := f.record("GeneratePeeringUser %s %s", provider.Context, consumerID); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "generate-peering-user")
	return &Artifact{Kind: handshake.KindPeeringUser, Data: []byte(peeringUserKubeconfig), Preview: peeringUserPreview, Sensitive: true,
		FromID: "provider-1", ForID: consumerID, User: peeringUserName, APIServer: "https://provider.example:6443", NotAfter: fakeExpiry}, nil
}

func (f *fakeBackend) CheckNonce(data []byte) (*Artifact, error) {
	n := strings.TrimSpace(string(data))
	if len(n) < 20 {
		return nil, fmt.Errorf("nonce has %d characters, expected %d: copy the whole nonce printed by `create nonce` on the provider", len(n), len(fakeNonce))
	}
	return &Artifact{Kind: handshake.KindNonce, Data: []byte(n)}, nil
}

func (f *fakeBackend) GenerateTenant(_ context.Context, consumer ClusterRef, providerID, nonce string, sink handshake.Sink) (*Artifact, error) {
	if err := f.record("GenerateTenant %s %s %s", consumer.Context, providerID, nonce); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "cluster-id", "signed-nonce-secret", "wait-signature", "generate-tenant")
	return &Artifact{Kind: handshake.KindTenant, Data: []byte(tenantYAML), Fingerprint: fpConsumer, FromID: "consumer-1", ForID: providerID}, nil
}

func (f *fakeBackend) CheckIdentity(_ context.Context, consumer ClusterRef, data []byte) (*Artifact, error) {
	if err := f.record("CheckIdentity %s", consumer.Context); err != nil {
		return nil, err
	}
	if !strings.Contains(string(data), "kind: Identity") {
		return nil, errors.New("input is Tenant, expected an Identity")
	}
	return &Artifact{Kind: handshake.KindIdentity, Data: data, Fingerprint: fpCA, FromID: "provider-1", APIServer: "https://provider.example:6443",
		NotAfter: fakeExpiry}, nil
}

func (f *fakeBackend) ApplyIdentity(_ context.Context, consumer ClusterRef, data []byte, sink handshake.Sink) (*AuthResult, error) {
	if err := f.record("ApplyIdentity %s", consumer.Context); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "apply-identity", "wait-identity-status")
	return &AuthResult{ConsumerID: "consumer-1", ProviderID: "provider-1", Identity: "liqo-tenant-provider-1/controlplane-provider-1",
		KubeconfigSecret: "liqo-tenant-provider-1/kubeconfig-controlplane-provider-1", CertificateExpiry: fakeExpiry}, nil
}

func (f *fakeBackend) Verify(_ context.Context, consumer ClusterRef, providerID string, sink handshake.Sink) (*Verification, error) {
	if err := f.record("Verify %s %s", consumer.Context, providerID); err != nil {
		return nil, err
	}
	sink(handshake.Event{Kind: handshake.StepStarted, Step: "verify", Index: 1, Total: 1, Scope: handshake.Local, Message: "Reaching the provider",
		Command: "liqo-auth-tui verify --remote-cluster-id " + providerID})
	sink(handshake.Event{Kind: handshake.StepDone, Step: "verify", Index: 1, Total: 1, Scope: handshake.Local, Message: "Authenticated as consumer-1: 2 allowed, 1 denied"})
	return &Verification{Server: "https://provider.example:6443", TenantNamespace: "liqo-tenant-consumer-1", User: "consumer-1",
		Groups: []string{"liqo.io", "system:authenticated"}, Allowed: []string{"get resourceslices", "create resourceslices"},
		Denied: []string{"list secrets (cluster-wide)"}, CertificateNotAfter: fakeExpiry, LastRenewal: f.renewedAt()}, nil
}

func (f *fakeBackend) renewedAt() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastRenewal
}

// fakeQuantity is the fake's idea of a Kubernetes quantity: digits, an
// optional fraction and suffix.
var fakeQuantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$`)

// fakeClusterID is the fake's idea of a cluster ID.
var fakeClusterID = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func (f *fakeBackend) CheckClusterID(id string) error {
	if len(id) > 63 || !fakeClusterID.MatchString(id) {
		return fmt.Errorf("%q is not a cluster ID (fake)", id)
	}
	return nil
}

func (f *fakeBackend) CheckSliceRequest(req SliceRequest) error {
	if err := f.CheckClusterID(req.Name); err != nil {
		return &handshake.FieldError{Field: handshake.FieldSliceName, Reason: fmt.Sprintf("%q is not a valid ResourceSlice name: lowercase letters, digits and '-'", req.Name)}
	}
	for _, q := range []struct{ field, v string }{{handshake.FieldCPU, req.CPU}, {handshake.FieldMemory, req.Memory}, {handshake.FieldPods, req.Pods}} {
		if q.v != "" && !fakeQuantity.MatchString(q.v) {
			return &handshake.FieldError{Field: q.field, Reason: fmt.Sprintf("%s: %q is not a quantity (e.g. 4, 500m, 8Gi)", q.field, q.v)}
		}
	}
	return nil
}

func (f *fakeBackend) RequestResources(_ context.Context, consumer ClusterRef, req SliceRequest, sink handshake.Sink) (*SliceInfo, error) {
	provider := "-"
	if req.Provider != nil {
		provider = req.Provider.Context
	}
	if err := f.record("RequestResources %s %s %s cpu=%s memory=%s pods=%s class=%s provider=%s", consumer.Context, req.ProviderID, req.Name,
		req.CPU, req.Memory, req.Pods, req.Class, provider); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "create-resourceslice", "wait-resourceslice")
	requested := map[string]string{}
	for k, v := range map[string]string{"cpu": req.CPU, "memory": req.Memory, "pods": req.Pods} {
		if v != "" {
			requested[k] = v
		}
	}
	info := SliceInfo{Name: req.Name, ProviderID: req.ProviderID, Class: req.Class, Authentication: "Accepted", Resources: "Accepted",
		Requested: requested, Granted: map[string]string{"cpu": orDefault(req.CPU, "2"), "memory": orDefault(req.Memory, "4Gi"), "pods": orDefault(req.Pods, "110")},
		Identity: "liqo-tenant-" + req.ProviderID + "/resourceslice-" + req.Name, KubeconfigSecret: "liqo-tenant-" + req.ProviderID + "/kubeconfig-resourceslice-" + req.Name,
		NotAfter: fakeExpiry}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sliceDenial != "" {
		info.Resources, info.Message, info.Granted = "Denied", f.sliceDenial, nil
	}
	for i, sl := range f.slices {
		// Like flows: another ask updates the slice in place; the same
		// request again is a no-op.
		if sl.Name == info.Name {
			if !maps.Equal(sl.Requested, info.Requested) || sl.Class != info.Class {
				f.slices[i] = info
				return &info, nil
			}
			return &sl, nil
		}
	}
	f.slices = append(f.slices, info)
	return &info, nil
}

func (f *fakeBackend) SliceAnswerer(_ context.Context, consumer ClusterRef, providerID string, provider *ClusterRef) (handshake.SliceAnswer, error) {
	if err := f.record("SliceAnswerer %s %s", consumer.Context, providerID); err != nil {
		return handshake.SliceAnswer{}, err
	}
	a := handshake.SliceAnswer{Answerer: f.answerer, ConsumerID: "consumer-1", Namespace: "liqo-tenant-consumer-1"}
	if provider != nil {
		a.Answerer = handshake.AnswererInProcess
	}
	return a, nil
}

func (f *fakeBackend) ServeSlices(ctx context.Context, provider ClusterRef, consumerID string, report func(ProviderSlices)) error {
	if err := f.record("ServeSlices %s %s", provider.Context, consumerID); err != nil {
		return err
	}
	f.mu.Lock()
	states, err, block := f.serveStates, f.serveErr, f.serveBlock
	f.mu.Unlock()
	for _, st := range states {
		report(st)
	}
	if block {
		<-ctx.Done()
		_ = f.record("ServeSlices stopped")
		return nil
	}
	return err
}

func (f *fakeBackend) ResourceSlices(_ context.Context, consumer ClusterRef, providerID string) ([]SliceInfo, error) {
	if err := f.record("ResourceSlices %s %s", consumer.Context, providerID); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]SliceInfo(nil), f.slices...), nil
}

func (f *fakeBackend) Advertised(_ context.Context, provider ClusterRef, consumerID string) (*Advertisement, error) {
	f.mu.Lock()
	adv := f.advertisement
	f.mu.Unlock()
	if adv == nil {
		return nil, nil
	}
	if err := f.record("Advertised %s %s", provider.Context, consumerID); err != nil {
		return nil, err
	}
	cp := *adv
	return &cp, nil
}

func (f *fakeBackend) SetAdvertised(_ context.Context, provider ClusterRef, consumerID string, edit AdvertiseEdit, _ handshake.Sink) (*Advertisement, error) {
	if err := f.record("SetAdvertised %s %s %s", provider.Context, consumerID, edit.APIServer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edits = append(f.edits, edit)
	adv := *f.advertisement
	if edit.APIServer != "" {
		adv.APIServer, adv.Source = edit.APIServer, "override"
	}
	if edit.TrustedCA {
		adv.TrustedCA, adv.CAFingerprint = true, ""
	}
	f.advertisement = &adv
	cp := adv
	return &cp, nil
}

// harness drives a Model's Update directly, running the commands it
// returns with runCmd (what only animates is dropped) until things settle.
type harness struct {
	t      testing.TB
	m      *Model
	fake   *fakeBackend
	quit   bool
	copied []string
}

var fixedNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// fakeExpiry is the notAfter of the fake Identity's certificate.
var fakeExpiry = fixedNow.Add(365 * 24 * time.Hour)

func newHarness(t testing.TB, f *fakeBackend, o Options) *harness {
	t.Helper()
	h := &harness{t: t, fake: f}
	if o.Backend == nil { // a test may wrap f
		o.Backend = f
	}
	if o.Environ == nil {
		o.Environ = []string{"TERM=xterm-256color", "DISPLAY=:0"}
	}
	o.now = func() time.Time { return fixedNow }
	o.clockEvery = time.Millisecond // the summary's redraws: the harness drops them
	o.nativeCopy = func(s string) error { h.copied = append(h.copied, s); return nil }
	h.m = New(context.Background(), o)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.run(h.m.Init())
	return h
}

func (h *harness) send(msg tea.Msg) { h.t.Helper(); h.run(func() tea.Msg { return msg }) }

func (h *harness) key(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyPress(k))
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// run runs cmd and what the model answers to its messages, until nothing
// is left to run (at most 5s: what is still running then is dropped).
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n := 0
	err := runCmd(ctx, cmd, func(msg tea.Msg) tea.Cmd {
		if _, ok := msg.(tea.QuitMsg); ok {
			h.quit = true
		}
		if h.quit || animation(msg) {
			return nil
		}
		if n++; n > 500 {
			h.t.Fatalf("message loop too long at %T", msg)
		}
		_, next := h.m.Update(msg)
		return next
	})
	if err != nil {
		h.t.Log("a command did not return in time; dropped")
	}
}

// view is the rendered screen without styles.
func (h *harness) view() string { return ansi.Strip(h.m.render()) }

func (h *harness) mustSee(parts ...string) {
	h.t.Helper()
	v := h.view()
	for _, p := range parts {
		if !strings.Contains(v, p) {
			h.t.Fatalf("screen lacks %q:\n%s", p, v)
		}
	}
}

// mustBeSaved checks that path holds want, readable by its owner only.
func mustBeSaved(t *testing.T, path, want string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v %v", st, err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Fatalf("saved %q %v", b, err)
	}
}

func screenIs[T screen](t *testing.T, h *harness) T {
	t.Helper()
	s, ok := h.m.cur.(T)
	if !ok {
		t.Fatalf("screen is %T, want %T:\n%s", h.m.cur, *new(T), h.view())
	}
	return s
}

// Liqo 0.x: the fake's provider peer info and results (liqo0x_test.go
// scripts them through liqo0xFake).

func (f *fakeBackend) PeerInfo(_ context.Context, provider ClusterRef, sink handshake.Sink) (*Artifact, error) {
	if err := f.liqo0xCall("PeerInfo %s", provider.Context); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "peer-info")
	return f.peerInfoArtifact(), nil
}

func (f *fakeBackend) CheckPeerInfo(_ context.Context, consumer ClusterRef, data []byte) (*Artifact, error) {
	if err := f.liqo0xCall("CheckPeerInfo %s", consumer.Context); err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(data)) != fakePeerInfoData {
		return nil, errors.New("the peer info was truncated or edited (checksum mismatch): ask the provider's admin to send it again whole")
	}
	return f.peerInfoArtifact(), nil
}

func (f *fakeBackend) ApplyPeerInfo(_ context.Context, consumer ClusterRef, data []byte, o Liqo0xOptions, sink handshake.Sink) (*Liqo0xResult, error) {
	f.mu.Lock()
	f.liqo0x.opts = append(f.liqo0x.opts, o)
	f.mu.Unlock()
	if err := f.liqo0xCall("ApplyPeerInfo %s peer=%t reissue=%t data=%t", consumer.Context, o.Peer, o.Reissue,
		strings.TrimSpace(string(data)) == fakePeerInfoData); err != nil {
		return nil, err
	}
	steps(sink, handshake.Local, "remote-token-secret", "foreign-cluster", "wait-authenticated")
	return f.liqo0xResult(), nil
}

func (f *fakeBackend) AuthenticateLiqo0x(_ context.Context, consumer, provider ClusterRef, o Liqo0xOptions, sink handshake.Sink) (*Liqo0xResult, error) {
	f.mu.Lock()
	f.liqo0x.opts = append(f.liqo0x.opts, o)
	f.mu.Unlock()
	if err := f.liqo0xCall("AuthenticateLiqo0x %s %s peer=%t reissue=%t", consumer.Context, provider.Context, o.Peer, o.Reissue); err != nil {
		sink(handshake.Event{Kind: handshake.StepFailed, Step: "request-identity", Scope: handshake.Remote, Message: "Requesting the identity failed: " + err.Error(), Err: err})
		return nil, err
	}
	steps(sink, handshake.Local, "ids", "request-identity", "store-kubeconfig")
	return f.liqo0xResult(), nil
}

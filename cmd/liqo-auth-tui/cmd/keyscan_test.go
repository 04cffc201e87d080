//go:build cluster

package cmd_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labbin"

	tea "charm.land/bubbletea/v2"
	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// Verbosities of the logs scanned. The tool's -v prints klog at its
// default level, 0: the in-process controllers and client-go are scanned
// at 7, a superset (the project's V(1)-V(4) messages too). From 8 up
// client-go hex-dumps HTTP bodies, Secrets included (as every Kubernetes
// client does), and from 9 its request timing races under -race: the tool
// has no flag to get there. The controller binary takes -v and --vmodule
// (client-go's request.go logs the bodies): scanned at their highest level.
const (
	inProcessVerbosity  = "7"
	controllerVerbosity = "10"
)

// TestKeyScan runs every way the tool authenticates two clusters and
// looks for private key material in everything that leaves the clusters:
// stdout, stderr, files written, clipboard payloads (decoded OSC52), klog
// output (what -v prints), the controller binary's log, Kubernetes Events,
// and files under HOME and TMPDIR.
//
// Not scanned, by design: Secret contents (the cluster keys and the
// consumer's kubeconfig Secret live in their cluster) and a peering user's
// kubeconfig, which carries its key to the consumer: the wizard marks it
// Sensitive (never copied) and shows it redacted, and that is checked.
func TestKeyScan(t *testing.T) {
	cs := clusters(t)
	controllerBinary := buildController(t)
	scratch := isolateHome(t)
	ctx := labtest.Context(t)

	auto := [2]side{initSide(t, 0, "ks-auto-provider"), initSide(t, 1, "ks-auto-consumer")}
	ctl := [2]side{initSide(t, 0, "ks-ctl-provider"), initSide(t, 1, "ks-ctl-consumer")}
	man := [2]side{initSide(t, 0, "ks-man-provider"), initSide(t, 1, "ks-man-consumer")}
	bat := [2]side{initSide(t, 0, "ks-bat-provider"), initSide(t, 1, "ks-bat-consumer")}
	wiz := [2]side{initSide(t, 0, "ks-wiz-provider"), initSide(t, 1, "ks-wiz-consumer")}
	klogOut := captureKlog(t) // after init: its quietKlog ran already
	var out scanCorpus

	// Automated, in-process controllers: authenticate -v.
	out.command(t, "authenticate -v", authArgs(auto, "authenticate", "-v")...)

	// Automated, served by the controller binary on both sides: --batch -v.
	p := startControllerBinary(t, controllerBinary, ctl[0])
	c := startControllerBinary(t, controllerBinary, ctl[1])
	stderr := out.command(t, "--batch -v (controller binary)", authArgs(ctl, "-v", "--batch")...)
	require.Contains(t, stderr, string(flows.EngineController), "the controller binary must serve the flow")
	out.add("controller log "+ctl[0].id, p.stop(t))
	out.add("controller log "+ctl[1].id, c.stop(t))

	// Manual, one kubeconfig per command (handshake_test.go), then the
	// Identity applied again from its file.
	dir, outputs := manualFlow(t, man[0], man[1])
	for i, o := range outputs {
		out.add(fmt.Sprintf("manual flow output %d", i), o)
	}
	out.command(t, "apply identity -f FILE -v", man[1].args("apply", "identity", "-v", "-f", filepath.Join(dir, "identity.yaml"))...)
	out.files(t, "manual flow file", dir)

	// Manual, --batch --role: artifacts on stdout, instructions on stderr.
	batchManualFlow(t, &out, bat[0], bat[1])

	// The wizard's manual flow through its backend, every artifact put on
	// the clipboard as the wizard does.
	peeringUserKey := wizardFlow(t, ctx, &out, wiz[0], wiz[1])

	klog.Flush()
	out.add("klog (-v) of the in-process commands", klogOut.String())
	out.files(t, "file under HOME/TMPDIR", scratch)
	events := out.events(t, ctx, cs[0].KubeconfigPath, cs[1].KubeconfigPath)

	keys := collectKeys(t, ctx, cs[0].KubeconfigPath, cs[1].KubeconfigPath)
	for _, s := range append(append(append(append(auto[:], ctl[:]...), man[:]...), bat[:]...), wiz[:]...) {
		keys.clusterKey(t, ctx, s)
	}
	keys.add("peering user key (wizard)", peeringUserKey)
	for _, path := range []string{cs[0].KubeconfigPath, cs[1].KubeconfigPath} {
		keys.fromValue("admin kubeconfig "+filepath.Base(path), mustRead(t, path))
	}

	// Nothing vacuous: every kind of output was produced and read.
	require.Positive(t, events, "Events scanned")
	require.Positive(t, out.lines("klog"), "klog lines scanned")
	require.Positive(t, out.lines("controller log"), "controller log lines scanned")
	require.Positive(t, out.count("clipboard"), "clipboard payloads scanned")
	require.Positive(t, out.count("manual flow file"), "artifact files scanned")
	require.GreaterOrEqual(t, len(keys.keys), 10, "private keys to look for (the ten clusters' at least)")
	t.Logf("scanned %d outputs (%d bytes, %d lines: %d klog lines, %d controller log lines, %d clipboard payloads, %d files, %d Events) for %d private keys in %d forms each at most",
		len(out.items), out.size(), out.lines(""), out.lines("klog"), out.lines("controller log"), out.count("clipboard"),
		out.count("file"), events, len(keys.keys), keys.maxForms())

	for _, k := range keys.keys {
		t.Logf("looking for the %s (%d forms)", k.name, len(k.forms))
	}
	// The scanner sees through client-go's hex dumps of HTTP bodies.
	control := keys.keys[0].forms[0]
	require.Contains(t, hexDumps(hex.Dump([]byte(control.text))), control.text)

	for _, it := range out.items {
		keys.scan(t, it.where, it.text)
		if dumped := hexDumps(it.text); dumped != "" {
			keys.scan(t, it.where+" (hex dumps decoded)", dumped)
		}
	}
}

// scan reports where text shows a private key, and in which form, never
// the key itself.
func (k *keySet) scan(t *testing.T, where, text string) {
	if strings.Contains(text, "PRIVATE KEY") {
		t.Errorf("%s: contains the marker PRIVATE KEY", where)
	}
	for _, key := range k.keys {
		for _, f := range key.forms {
			if strings.Contains(text, f.text) {
				t.Errorf("%s: contains %s of the %s", where, f.name, key.name)
			}
		}
	}
}

// hexDumpLine is a line of hex.Dump, the way client-go logs binary bodies.
var hexDumpLine = regexp.MustCompile(`(?m)^\s*[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2}){1,16})`)

// hexDumps returns the bytes of every hex dump in text, concatenated.
func hexDumps(text string) string {
	var b []byte
	for _, m := range hexDumpLine.FindAllStringSubmatch(text, -1) {
		if d, err := hex.DecodeString(strings.ReplaceAll(m[1], " ", "")); err == nil {
			b = append(b, d...)
		}
	}
	return string(b)
}

// authArgs are the flags of a whole handshake with both kubeconfigs.
func authArgs(pair [2]side, args ...string) []string {
	return append(args, "--kubeconfig", pair[1].kubeconfig, "--liqo-namespace", pair[1].liqoNamespace,
		"--remote-kubeconfig", pair[0].kubeconfig, "--remote-liqo-namespace", pair[0].liqoNamespace)
}

func batchManualFlow(t *testing.T, out *scanCorpus, provider, consumer side) {
	dir := t.TempDir()
	step := func(what string, s side, peer string, extra ...string) string {
		code, stdout, stderr := run(s.args(append([]string{"-v", "--batch", "--role", what, "--remote-cluster-id", peer}, extra...)...)...)
		require.Equal(t, cmd.ExitOK, code, stderr)
		out.add("--batch --role "+what+" stdout", stdout)
		out.add("--batch --role "+what+" stderr", stderr)
		return stdout
	}
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
		return path
	}
	nonce := write("nonce", step("provider", provider, consumer.id))
	tenant := write("tenant", step("consumer", consumer, provider.id, "--nonce-file", nonce))
	identity := write("identity", step("provider", provider, consumer.id, "--tenant-file", tenant))
	step("consumer", consumer, provider.id, "--identity-file", identity)
}

// wizardFlow runs the wizard's manual steps through its backend and puts
// every artifact on the clipboard the way the wizard's `c` does. It
// returns the peering user's key, which must appear nowhere.
func wizardFlow(t *testing.T, ctx context.Context, out *scanCorpus, provider, consumer side) []byte {
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	p := tui.ClusterRef{Kubeconfig: provider.kubeconfig, Namespace: provider.liqoNamespace}
	c := tui.ClusterRef{Kubeconfig: consumer.kubeconfig, Namespace: consumer.liqoNamespace}
	var mu sync.Mutex
	var screen strings.Builder
	sink := func(e handshake.Event) { // what the wizard's run screen shows
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&screen, "%+v\n", e)
	}
	copied := func(a *tui.Artifact) {
		out.add("wizard screen "+string(a.Kind), a.Shown())
		out.add("clipboard (decoded OSC52) "+string(a.Kind), osc52Payload(t, clipText(a)))
	}

	nonce, err := b.CreateNonce(ctx, p, consumer.id, sink)
	require.NoError(t, err)
	copied(nonce)
	tenant, err := b.GenerateTenant(ctx, c, provider.id, strings.TrimSpace(string(nonce.Data)), sink)
	require.NoError(t, err)
	copied(tenant)
	checked, err := b.CheckTenant(ctx, p, tenant.Data)
	require.NoError(t, err)
	copied(checked)
	_, err = b.ApplyTenant(ctx, p, tenant.Data, sink)
	require.NoError(t, err)
	identity, err := b.GenerateIdentity(ctx, p, consumer.id, sink)
	require.NoError(t, err)
	copied(identity)
	_, err = b.CheckIdentity(ctx, c, identity.Data)
	require.NoError(t, err)
	_, err = b.ApplyIdentity(ctx, c, identity.Data, sink)
	require.NoError(t, err)

	user, err := b.GeneratePeeringUser(ctx, p, consumer.id, sink)
	require.NoError(t, err)
	require.True(t, user.Sensitive, "a peering user's kubeconfig must never go on the clipboard")
	out.add("wizard screen peering user (redacted)", user.Shown())
	mu.Lock()
	out.add("wizard run screen events", screen.String())
	mu.Unlock()
	cfg, err := clientcmd.Load(user.Data)
	require.NoError(t, err)
	for _, ai := range cfg.AuthInfos {
		if len(ai.ClientKeyData) > 0 {
			return ai.ClientKeyData
		}
	}
	t.Fatal("the peering user's kubeconfig has no key")
	return nil
}

// clipText is what the wizard's hand-off screen copies (handoffScreen.clip
// in tui): the data when only its preview is masked, else what is shown.
func clipText(a *tui.Artifact) string {
	if a.Masked {
		return string(a.Data)
	}
	return a.Shown()
}

// osc52Payload runs a bubbletea program that sets the clipboard, as the
// wizard does over SSH or without a display server, and returns the
// decoded payload of the OSC52 sequence it writes to the terminal.
func osc52Payload(t *testing.T, text string) string {
	var term bytes.Buffer
	prog := tea.NewProgram(clipboardModel{text}, tea.WithInput(nil), tea.WithOutput(&term),
		tea.WithoutRenderer(), tea.WithWindowSize(80, 24), tea.WithContext(t.Context()))
	_, err := prog.Run()
	require.NoError(t, err)
	m := regexp.MustCompile(`\x1b\]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\)`).FindSubmatch(term.Bytes())
	require.NotNil(t, m, "no OSC52 sequence written: %q", term.String())
	payload, err := base64.StdEncoding.DecodeString(string(m[1]))
	require.NoError(t, err)
	require.Equal(t, text, string(payload))
	return string(payload)
}

type clipboardModel struct{ text string }

func (m clipboardModel) Init() tea.Cmd                       { return tea.Sequence(tea.SetClipboard(m.text), tea.Quit) }
func (m clipboardModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return m, nil }
func (m clipboardModel) View() tea.View                      { return tea.NewView("") }

// scanCorpus is everything the tool let out, by where it was read.
type scanCorpus struct {
	mu    sync.Mutex
	items []scanItem
}

type scanItem struct{ where, text string }

func (c *scanCorpus) add(where, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items = append(c.items, scanItem{where, text})
}

// command runs a command line that must succeed and keeps its outputs.
func (c *scanCorpus) command(t *testing.T, name string, args ...string) string {
	code, stdout, stderr := run(args...)
	require.Equal(t, cmd.ExitOK, code, stderr)
	c.add(name+" stdout", stdout)
	c.add(name+" stderr", stderr)
	return stderr
}

// files adds every regular file under dir.
func (c *scanCorpus) files(t *testing.T, where, dir string) {
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		c.add(where+" "+path, string(mustRead(t, path)))
		return nil
	}))
}

// events adds the Events of every namespace of the clusters, whole, and
// returns how many.
func (c *scanCorpus) events(t *testing.T, ctx context.Context, kubeconfigs ...string) int {
	n := 0
	for _, path := range kubeconfigs {
		cl, err := kube.Connect(kube.KubeconfigOptions{Path: path})
		require.NoError(t, err)
		list, err := cl.Kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for _, e := range list.Items {
			b, err := json.Marshal(e)
			require.NoError(t, err)
			c.add(fmt.Sprintf("Event %s/%s (%s) on %s", e.Namespace, e.Name, e.Reason, filepath.Base(path)), string(b))
		}
		n += len(list.Items)
	}
	return n
}

func (c *scanCorpus) count(where string) int {
	n := 0
	for _, it := range c.items {
		if strings.Contains(it.where, where) {
			n++
		}
	}
	return n
}

func (c *scanCorpus) lines(where string) int {
	n := 0
	for _, it := range c.items {
		if strings.Contains(it.where, where) {
			n += strings.Count(it.text, "\n")
		}
	}
	return n
}

func (c *scanCorpus) size() int {
	n := 0
	for _, it := range c.items {
		n += len(it.text)
	}
	return n
}

// keySet is every private key to look for, each in the forms it could
// leak in.
type keySet struct{ keys []privateKey }

type privateKey struct {
	name  string
	forms []keyForm
}

type keyForm struct{ name, text string }

// clusterKey adds a cluster's key as the kube package reads it.
func (k *keySet) clusterKey(t *testing.T, ctx context.Context, s side) {
	c, err := kube.Connect(kube.KubeconfigOptions{Path: s.kubeconfig, LiqoNamespace: s.liqoNamespace})
	require.NoError(t, err)
	_, pemBytes, err := c.PrivateKey(ctx)
	require.NoError(t, err)
	k.add("cluster key of "+s.id, pemBytes)
}

// fromValue adds the keys in a Secret value: PEM blocks, and those of an
// embedded kubeconfig (client-key-data).
func (k *keySet) fromValue(name string, value []byte) {
	for rest := value; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if strings.Contains(block.Type, "PRIVATE KEY") {
			k.add(name, pem.EncodeToMemory(block))
		}
	}
	if cfg, err := clientcmd.Load(value); err == nil {
		for user, ai := range cfg.AuthInfos {
			if len(ai.ClientKeyData) > 0 {
				k.fromValue(name+" user "+user, ai.ClientKeyData)
			}
		}
	}
}

// add adds one PEM key in every form it could leak in.
func (k *keySet) add(name string, pemBytes []byte) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return
	}
	der := block.Bytes
	forms := []keyForm{
		{"the PEM", strings.TrimSpace(string(pemBytes))},
		{"base64(PEM)", base64.StdEncoding.EncodeToString(pemBytes)},
		{"base64(DER)", base64.StdEncoding.EncodeToString(der)},
		{"unpadded base64(DER)", base64.RawStdEncoding.EncodeToString(der)},
		{"base64url(DER)", base64.RawURLEncoding.EncodeToString(der)},
		{"hex(DER)", hex.EncodeToString(der)},
		{"HEX(DER)", strings.ToUpper(hex.EncodeToString(der))},
	}
	// A truncated dump still shows whole PEM lines.
	for i, line := range strings.Split(string(pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der})), "\n") {
		if len(line) == 64 {
			forms = append(forms, keyForm{fmt.Sprintf("PEM line %d", i), line})
		}
	}
	var raw map[string][]byte
	if key, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		switch key := key.(type) {
		case ed25519.PrivateKey:
			raw = map[string][]byte{"Ed25519 seed": key.Seed(), "Ed25519 private key": key}
		case *ecdsa.PrivateKey:
			raw = map[string][]byte{"ECDSA scalar": key.D.FillBytes(make([]byte, (key.Curve.Params().BitSize+7)/8))}
		}
	} else if key, err := x509.ParseECPrivateKey(der); err == nil {
		raw = map[string][]byte{"ECDSA scalar": key.D.FillBytes(make([]byte, (key.Curve.Params().BitSize+7)/8))}
	}
	for what, b := range raw {
		forms = append(forms,
			keyForm{"base64(" + what + ")", base64.StdEncoding.EncodeToString(b)},
			keyForm{"unpadded base64(" + what + ")", base64.RawStdEncoding.EncodeToString(b)},
			keyForm{"base64url(" + what + ")", base64.RawURLEncoding.EncodeToString(b)},
			keyForm{"hex(" + what + ")", hex.EncodeToString(b)})
	}
	for i, existing := range k.keys {
		if existing.forms[0].text == forms[0].text {
			// The same key found twice (its Secret and c.PrivateKey).
			k.keys[i].name += ", also " + name
			return
		}
	}
	k.keys = append(k.keys, privateKey{name: name, forms: forms})
}

func (k *keySet) maxForms() int {
	n := 0
	for _, key := range k.keys {
		n = max(n, len(key.forms))
	}
	return n
}

// collectKeys finds every private key the clusters hold in Secrets (the
// cluster keys, the consumers' kubeconfig Secrets, pending CSR keys...).
func collectKeys(t *testing.T, ctx context.Context, kubeconfigs ...string) *keySet {
	k := &keySet{}
	for _, path := range kubeconfigs {
		c, err := kube.Connect(kube.KubeconfigOptions{Path: path})
		require.NoError(t, err)
		secrets, err := c.Kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for _, s := range secrets.Items {
			for field, v := range s.Data {
				k.fromValue(fmt.Sprintf("key in Secret %s/%s[%s] on %s", s.Namespace, s.Name, field, filepath.Base(path)), v)
			}
		}
	}
	return k
}

// syncBuffer is a buffer klog and the test may use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// captureKlog sends klog, at inProcessVerbosity, to a buffer, as -v sends it to
// the process's stderr. The command's quietKlog runs once per process: it
// must have run (any command without -v) for the capture to last.
func captureKlog(t *testing.T) *syncBuffer {
	fl := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fl)
	buf := &syncBuffer{}
	klog.ClearLogger()
	klog.LogToStderr(false)
	klog.SetOutput(buf)
	require.NoError(t, fl.Set("v", inProcessVerbosity))
	t.Cleanup(func() {
		klog.Flush()
		_ = fl.Set("v", "0")
		klog.SetLogger(logr.Discard()) // what quietKlog set
	})
	return buf
}

// isolateHome points HOME, TMPDIR and the XDG directories at a fresh
// directory, so that any file the tool writes on the way is scanned too.
func isolateHome(t *testing.T) string {
	dir := t.TempDir()
	for _, v := range []string{"HOME", "TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"} {
		sub := filepath.Join(dir, strings.ToLower(v))
		require.NoError(t, os.Mkdir(sub, 0o700))
		t.Setenv(v, sub)
	}
	return dir
}

// buildController builds the in-cluster controller binary.
func buildController(t *testing.T) string {
	bin, err := labbin.Path(t.TempDir(), "liqo-auth-controller")
	require.NoError(t, err, "building the controller")
	return bin
}

// controllerProcess is the controller binary serving one side's Liqo
// namespace (both roles) with the admin kubeconfig.
type controllerProcess struct {
	cmd     *exec.Cmd
	log     string
	exited  chan error
	stopped sync.Once
}

func startControllerBinary(t *testing.T, bin string, s side) *controllerProcess {
	log := filepath.Join(t.TempDir(), s.id+".log")
	f, err := os.Create(log)
	require.NoError(t, err)
	defer f.Close()
	c := exec.Command(bin, "--kubeconfig", s.kubeconfig, "--liqo-namespace", s.liqoNamespace, "--identity", s.id,
		"--health-address", "127.0.0.1:0", "--metrics-address", "127.0.0.1:0", "-v", controllerVerbosity, "--vmodule", "request="+controllerVerbosity)
	c.Stdout, c.Stderr = f, f
	require.NoError(t, c.Start())
	p := &controllerProcess{cmd: c, log: log, exited: make(chan error, 1)}
	go func() { p.exited <- c.Wait() }()
	t.Cleanup(func() { p.stop(t) })

	// Started when it holds its Lease: the tool then sees it running.
	cl, err := kube.Connect(kube.KubeconfigOptions{Path: s.kubeconfig, LiqoNamespace: s.liqoNamespace})
	require.NoError(t, err)
	leases := cl.Kube.CoordinationV1().Leases(s.liqoNamespace)
	ctx, cancel := context.WithTimeout(labtest.Context(t), time.Minute)
	defer cancel()
	_, err = kube.WaitFor(ctx, kube.ListWatch(leases.List, leases.Watch, kube.ByName(kube.ControllerLeaseName)), "controller lease",
		func(l *coordinationv1.Lease) (bool, error) {
			return l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == s.id, nil
		})
	require.NoError(t, err, "controller log:\n%s", mustRead(t, log))
	return p
}

// stop ends the controller (SIGTERM, as kubelet does) and returns its log.
func (p *controllerProcess) stop(t *testing.T) string {
	p.stopped.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return string(mustRead(t, p.log))
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

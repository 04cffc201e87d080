//go:build cluster

package main_test

// End-to-end tests of the real binary: the wizard runs in tmux against two
// real control planes, driven with send-keys and read with capture-pane,
// exactly as an admin at a 120×40 terminal would use it.

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labbin"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// testLab is the pair of control planes of these tests, started by the
// first one.
var testLab = labtest.Lazy("provider", "consumer")

// clusters returns the lab's clusters, starting them on first use.
func clusters(t testing.TB) []*lab.Cluster { return testLab.Clusters(t) }

var (
	// bin is the binary under test, built by TestMain while the lab starts.
	bin      string
	built    = make(chan struct{})
	buildErr error
)

const (
	providerIdx, consumerIdx = 0, 1
	termWidth, termHeight    = 120, 40
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	flag.Parse()
	if !runsAny("TestWizardAutomatedInTmux", "TestWizardManualTwoInstancesInTmux", "TestAuthenticateAsksInTmux") {
		// `make bench` (-run '^$'): no build.
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "liqo-auth-tui-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	go func() {
		defer close(built)
		bin, buildErr = labbin.Path(dir, "liqo-auth-tui")
	}()
	code := testLab.Run(m)
	<-built
	return code
}

// runsAny tells whether -test.run selects one of the tests.
func runsAny(tests ...string) bool {
	f := flag.Lookup("test.run")
	if f == nil || f.Value.String() == "" {
		return true
	}
	re, err := regexp.Compile(strings.Split(f.Value.String(), "/")[0])
	if err != nil {
		return true
	}
	for _, name := range tests {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// binary waits for the build and returns the binary's path.
func binary(t *testing.T) string {
	t.Helper()
	<-built
	require.NoError(t, buildErr)
	return bin
}

// side is one lab cluster prepared for a test with its own cluster ID and
// Liqo namespace, so tests sharing the lab never see each other's objects.
type side struct {
	kubeconfig, namespace, id string
	server                    string // the API server URL of its kubeconfig
}

func suffix(t *testing.T) string {
	b := make([]byte, 3)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// initSide runs `liqo-auth-tui init` on a lab cluster.
func initSide(t *testing.T, idx int, id, namespace string) side {
	t.Helper()
	s := side{kubeconfig: clusters(t)[idx].KubeconfigPath, server: clusters(t)[idx].Config.Host, namespace: namespace, id: id}
	out, err := exec.CommandContext(t.Context(), binary(t), "init", "--kubeconfig", s.kubeconfig,
		"--liqo-namespace", s.namespace, "--cluster-id", s.id).CombinedOutput()
	require.NoError(t, err, "init %s:\n%s", id, out)
	return s
}

// requireKubeconfigSecret checks that the consumer holds the kubeconfig
// Secret for the provider, with a kubeconfig in it.
func requireKubeconfigSecret(t *testing.T, consumer, provider side) {
	t.Helper()
	c, err := kube.Connect(kube.KubeconfigOptions{Path: consumer.kubeconfig, LiqoNamespace: consumer.namespace})
	require.NoError(t, err)
	s, err := c.KubeconfigSecretFor(labtest.Context(t), provider.id)
	require.NoError(t, err, "kubeconfig Secret for provider %s on consumer %s", provider.id, consumer.id)
	require.NotEmpty(t, s.Data[kube.KubeconfigField], "Secret %s/%s has no kubeconfig", s.Namespace, s.Name)
}

// tmuxServer is a private tmux server (its own socket and configuration)
// for one test: the admin's own tmux is never touched.
type tmuxServer struct {
	t    *testing.T
	path string
	sock string
	conf string
	cwd  string
}

func newTmux(t *testing.T) *tmuxServer {
	t.Helper()
	path, err := exec.LookPath("tmux")
	require.NoError(t, err, "the wizard's end-to-end tests need tmux (apt-get install tmux)")
	// A short folder: a socket path has at most 107 bytes.
	dir, err := os.MkdirTemp("", "lat-tmux-")
	require.NoError(t, err)
	s := &tmuxServer{t: t, path: path, sock: filepath.Join(dir, "sock"), conf: filepath.Join(dir, "tmux.conf"), cwd: t.TempDir()}
	// Keep a pane whose program exited, to show its last screen.
	require.NoError(t, os.WriteFile(s.conf, []byte("set -g remain-on-exit on\nset -g history-limit 5000\n"), 0o600))
	t.Cleanup(func() {
		_, _ = s.run("kill-server")
		_ = os.RemoveAll(dir)
	})
	return s
}

func (s *tmuxServer) run(args ...string) (string, error) {
	cmd := exec.Command(s.path, append([]string{"-S", s.sock, "-f", s.conf}, args...)...)
	// Inside a tmux session TMUX is set: this server is not that one.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// term is one tmux session running the wizard: an admin's terminal.
type term struct {
	s    *tmuxServer
	name string
	// exitFile receives the wizard's exit status when it ends (tmux may
	// take seconds to notice that a pane's program exited).
	exitFile string
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// start runs argv in a new detached session of termWidth×termHeight; its
// exit status lands in tm.exitFile (written whole, then renamed).
func (s *tmuxServer) start(name string, argv ...string) *term {
	s.t.Helper()
	tm := &term{s: s, name: name, exitFile: filepath.Join(s.cwd, name+".exit")}
	script := `"$@"; echo $? > "$EXIT_FILE.tmp" && mv "$EXIT_FILE.tmp" "$EXIT_FILE"`
	_, err := s.run("new-session", "-d", "-x", fmt.Sprint(termWidth), "-y", fmt.Sprint(termHeight),
		"-s", name, "-c", s.cwd, "-e", "EXIT_FILE="+tm.exitFile, shellQuote(append([]string{"sh", "-c", script, "sh"}, argv...)))
	require.NoError(s.t, err)
	s.t.Cleanup(func() {
		if s.t.Failed() {
			s.t.Logf("last screen of %s:\n%s", name, tm.screen())
		}
		_, _ = s.run("kill-session", "-t", name)
	})
	return tm
}

// screen is what the terminal shows now, without colours.
func (tm *term) screen() string {
	out, err := tm.s.run("capture-pane", "-p", "-t", tm.name)
	if err != nil {
		return err.Error()
	}
	return out
}

// keys sends tmux key names (Enter, Tab, C-s...).
func (tm *term) keys(keys ...string) {
	tm.s.t.Helper()
	_, err := tm.s.run(append([]string{"send-keys", "-t", tm.name}, keys...)...)
	require.NoError(tm.s.t, err)
}

// typeText types text literally.
func (tm *term) typeText(text string) {
	tm.s.t.Helper()
	_, err := tm.s.run("send-keys", "-t", tm.name, "-l", text)
	require.NoError(tm.s.t, err)
}

// pasteFile pastes a file's content as the terminal does: one bracketed
// paste (the wizard gets it as a single tea.PasteMsg).
func (tm *term) pasteFile(path string) {
	tm.s.t.Helper()
	buf := "paste-" + tm.name
	_, err := tm.s.run("load-buffer", "-b", buf, path)
	require.NoError(tm.s.t, err)
	_, err = tm.s.run("paste-buffer", "-p", "-d", "-b", buf, "-t", tm.name)
	require.NoError(tm.s.t, err)
}

// exited returns the wizard's exit status, if it ended.
func (tm *term) exited() (int, bool) {
	b, err := os.ReadFile(tm.exitFile)
	if err != nil {
		return 0, false
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(tm.s.t, err, "exit file %s", tm.exitFile)
	return code, true
}

// waitExit waits, watching the folder, until the wizard ended, and returns
// its exit status.
func (tm *term) waitExit(timeout time.Duration) int {
	tm.s.t.Helper()
	w, err := fsnotify.NewWatcher()
	require.NoError(tm.s.t, err)
	defer w.Close()
	require.NoError(tm.s.t, w.Add(filepath.Dir(tm.exitFile)))
	deadline := time.After(timeout)
	for {
		if code, ok := tm.exited(); ok {
			return code
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			require.NoError(tm.s.t, err)
		case <-deadline:
			tm.s.t.Fatalf("%s: the wizard did not exit within %v:\n%s", tm.name, timeout, tm.screen())
		}
	}
}

// waitFor polls the screen until it holds every text (a regexp when it
// starts with "re:"), and returns it. A terminal has no change events, so
// this helper polls; it fails at the deadline, or at once when the wizard
// exited, showing the last screen.
func (tm *term) waitFor(timeout time.Duration, want ...string) string {
	tm.s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		sc := tm.screen()
		missing := ""
		for _, w := range want {
			if re, ok := strings.CutPrefix(w, "re:"); ok {
				if !regexp.MustCompile(re).MatchString(sc) {
					missing = w
					break
				}
			} else if !strings.Contains(sc, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return sc
		}
		if code, ok := tm.exited(); ok {
			tm.s.t.Fatalf("%s: the wizard exited (status %d) while waiting for %q:\n%s", tm.name, code, missing, sc)
		}
		if strings.Contains(sc, "Something failed") {
			tm.s.t.Fatalf("%s: the wizard shows an error while waiting for %q:\n%s", tm.name, missing, sc)
		}
		if time.Now().After(deadline) {
			tm.s.t.Fatalf("%s: no %q on the screen after %v:\n%s", tm.name, missing, timeout, sc)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// finish leaves the summary and checks the wizard exited with status 0.
func (tm *term) finish() {
	tm.s.t.Helper()
	tm.keys("Enter")
	require.Equal(tm.s.t, 0, tm.waitExit(screenWait), "%s: exit status", tm.name)
}

// saveAs saves the artifact shown on a hand-off screen to path with s.
func (tm *term) saveAs(path string) {
	tm.s.t.Helper()
	tm.keys("s")
	tm.waitFor(screenWait, "save as:")
	tm.typeText(path) // replaces the default file name, shown as a placeholder
	tm.keys("Enter")
	tm.waitFor(screenWait, "Saved to "+path)
}

// receiveFile reads an artifact into a receive screen from a file (tab).
func (tm *term) receiveFile(path string) {
	tm.s.t.Helper()
	tm.keys("Tab")
	tm.waitFor(screenWait, "file: ")
	tm.typeText(path)
	tm.keys("Enter")
}

// confirmAdvertised accepts the advertise screen, which comes before the
// provider's Identity is made, after checking it shows server.
func (tm *term) confirmAdvertised(server string) {
	tm.s.t.Helper()
	tm.waitFor(flowWait, "What the consumer gets", "The consumer will reach this provider at "+server, "enter continue")
	tm.keys("Enter")
}

const (
	// screenWait bounds a screen change that needs no cluster work.
	screenWait = 30 * time.Second
	// flowWait bounds steps that run the handshake on the clusters.
	flowWait = 2 * time.Minute
)

func TestWizardAutomatedInTmux(t *testing.T) {
	sfx := suffix(t)
	ns := "liqo-e2e-auto-" + sfx
	provider := initSide(t, providerIdx, "e2e-auto-provider-"+sfx, ns)
	consumer := initSide(t, consumerIdx, "e2e-auto-consumer-"+sfx, ns)
	start := time.Now()

	tmux := newTmux(t)
	args := []string{binary(t), "--kubeconfig", consumer.kubeconfig, "--remote-kubeconfig", provider.kubeconfig,
		"--liqo-namespace", ns, "--remote-liqo-namespace", ns}
	// q before anything was written just leaves: no question, no error.
	leave := tmux.start("leave", args...)
	leave.waitFor(screenWait, "Automated mode", "enter continue")
	leave.keys("q")
	require.Equal(t, 0, leave.waitExit(screenWait), leave.screen())
	require.NotContains(t, leave.screen(), "ERRO")

	tm := tmux.start("auto", args...)
	tm.waitFor(screenWait, "Automated mode", "cluster ID "+consumer.id, "cluster ID "+provider.id, "enter continue")
	t.Logf("detect screen after %v", time.Since(start).Round(time.Millisecond))
	tm.keys("Enter")
	// The address and CA fields show their placeholders whole.
	tm.waitFor(flowWait, "What the consumer gets", "e edit address and CA")
	tm.keys("e")
	tm.waitFor(screenWait, "> https://host:port (empty = the provider's default)", "> CA PEM file, 'trusted' (publicly trusted), empty = default")
	tm.keys("Escape")
	tm.confirmAdvertised(provider.server)
	sc := tm.waitFor(flowWait, "✓ Authenticated", "Consumer:            "+consumer.id, "Provider:            "+provider.id,
		`re:Authenticated as:\s+`+regexp.QuoteMeta(consumer.id)+`\n`, `re:Certificate expires:\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 36\dd\)`,
		"Kubeconfig Secret:   liqo-tenant-"+provider.id+"/")
	t.Logf("summary after %v:\n%s", time.Since(start).Round(time.Millisecond), strings.TrimRight(sc, "\n"))
	tm.finish()
	requireKubeconfigSecret(t, consumer, provider)

	// Run again: the wizard shows the peering in its overview first; a new
	// peering (n) finds the handshake done and only verifies it.
	again := tmux.start("again", args...)
	again.waitFor(screenWait, "Automated mode", "enter continue", "1 peering(s) already on this cluster")
	again.keys("Enter")
	again.waitFor(flowWait, "Peerings of cluster "+consumer.id+" with "+provider.id, provider.id, "kept up to date from watches")
	again.keys("n") // detection again, then on by itself: nothing needs the admin
	again.waitFor(flowWait, "Already authenticated", "✓ Authenticated", `re:Authenticated as:\s+`+regexp.QuoteMeta(consumer.id)+`\n`,
		`re:Certificate expires:\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 36\dd\)`)
	again.finish()
}

func TestWizardManualTwoInstancesInTmux(t *testing.T) {
	sfx := suffix(t)
	ns := "liqo-e2e-manual-" + sfx
	provider := initSide(t, providerIdx, "e2e-man-provider-"+sfx, ns)
	consumer := initSide(t, consumerIdx, "e2e-man-consumer-"+sfx, ns)
	files := t.TempDir()
	nonceFile, tenantFile, identityFile := filepath.Join(files, "nonce.txt"), filepath.Join(files, "tenant.yaml"), filepath.Join(files, "identity.yaml")
	start := time.Now()

	tmux := newTmux(t)
	prov := tmux.start("provider", binary(t), "--kubeconfig", provider.kubeconfig, "--liqo-namespace", ns,
		"--role", "provider", "--remote-cluster-id", consumer.id)
	cons := tmux.start("consumer", binary(t), "--kubeconfig", consumer.kubeconfig, "--liqo-namespace", ns,
		"--role", "consumer", "--remote-cluster-id", provider.id)

	// Provider: create the nonce and save it to a file.
	prov.waitFor(screenWait, "Manual mode", "(the provider)", "cluster ID "+provider.id, "enter continue", "manual: provider, consumer by hand-off")
	prov.keys("Enter")
	prov.waitFor(screenWait, "Which consumer?", "> "+consumer.id)
	prov.keys("Enter")
	prov.waitFor(flowWait, "Send this nonce to the consumer's admin", "generate tenant --remote-cluster-id "+provider.id)
	prov.saveAs(nonceFile)
	nonce, err := os.ReadFile(nonceFile)
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(string(nonce)))
	require.Contains(t, prov.screen(), strings.TrimSpace(string(nonce)), "the saved nonce is not the one shown")

	// Consumer: receive the nonce by a bracketed paste, sign it, save the Tenant.
	cons.waitFor(screenWait, "Manual mode", "(the consumer)", "cluster ID "+consumer.id, "enter continue")
	cons.keys("Enter")
	cons.waitFor(screenWait, "Which provider?", "> "+provider.id)
	cons.keys("Enter")
	cons.waitFor(flowWait, "Receive the nonce (or a Liqo 0.x peer info) from the provider's admin", "waiting for the nonce")
	cons.pasteFile(nonceFile)
	cons.waitFor(screenWait, "✓ a valid nonce", "enter/ctrl+s use it")
	cons.keys("Enter")
	cons.waitFor(screenWait, "Sign this nonce with "+consumer.id+"'s key", "y apply")
	cons.keys("y")
	sc := cons.waitFor(flowWait, "Send this Tenant to the provider's admin", "kind: Tenant", "Consumer key fingerprint: ")
	fp := regexp.MustCompile(`Consumer key fingerprint: (\S+)`).FindStringSubmatch(sc)
	require.Len(t, fp, 2, sc)
	cons.saveAs(tenantFile)
	cons.keys("Enter")
	cons.waitFor(screenWait, "Receive the Identity from the provider's admin")

	// Provider: receive the Tenant from the file, apply it, save the Identity.
	prov.keys("Enter")
	prov.waitFor(screenWait, "Receive the Tenant from the consumer's admin")
	prov.receiveFile(tenantFile)
	// The fingerprint both admins compare out of band is the same.
	prov.waitFor(flowWait, "✓ a valid Tenant from consumer "+consumer.id, "consumer key: "+fp[1])
	prov.keys("C-s")
	prov.waitFor(screenWait, "Apply the Tenant of consumer "+consumer.id)
	prov.keys("y")
	prov.confirmAdvertised(provider.server)
	prov.waitFor(flowWait, "Send this Identity to the consumer's admin", "kind: Identity", "Certificate expires: ",
		"verify --remote-cluster-id "+provider.id)
	prov.saveAs(identityFile)
	prov.keys("Enter")
	prov.waitFor(screenWait, "Provider side done", "Consumer:            "+consumer.id, "Certificate expires:")
	// Nothing else serves the provider: its summary does while it is open.
	prov.waitFor(flowWait, "This wizard answers them in-process while this summary is open", "none yet")

	// Consumer: receive the Identity from the file, apply it, verify.
	cons.receiveFile(identityFile)
	cons.waitFor(flowWait, "✓ a valid Identity from provider "+provider.id, "certificate expires: ")
	cons.keys("C-s")
	cons.waitFor(screenWait, "Apply the Identity of provider "+provider.id)
	cons.keys("y")
	sc = cons.waitFor(flowWait, "✓ Authenticated", "Consumer:            "+consumer.id, "Provider:            "+provider.id,
		`re:Authenticated as:\s+`+regexp.QuoteMeta(consumer.id)+`\n`, `re:Certificate expires:\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 36\dd\)`,
		"Consumer key:        "+fp[1])
	t.Logf("consumer summary after %v:\n%s", time.Since(start).Round(time.Millisecond), strings.TrimRight(sc, "\n"))

	// Consumer: request resources. The form says who answers; nothing known
	// serves the provider, so its admin gets the request first.
	cons.keys("r")
	cons.waitFor(screenWait, "Request resources from provider "+provider.id, "Who answers: The controller of provider "+provider.id+" must answer it")
	cons.keys("Tab")
	cons.typeText("1")
	cons.keys("Enter")
	cons.waitFor(screenWait, "Send this ResourceSlice request to the provider's admin", "liqo-auth-tui install controller",
		"liqo-auth-tui --role provider --remote-cluster-id "+consumer.id)
	requestFile := filepath.Join(files, "resourceslice-request.txt")
	cons.saveAs(requestFile)
	request, err := os.ReadFile(requestFile)
	require.NoError(t, err)
	require.Contains(t, string(request), "kubectl get resourceslices.authentication.liqo.io "+provider.id+" -n liqo-tenant-"+consumer.id)
	asked := time.Now()
	cons.keys("Enter")
	// The provider's wizard, open on its summary, answers.
	cons.waitFor(flowWait, "✓ Provider "+provider.id+" granted the ResourceSlice "+provider.id, "Requested:           cpu 1")
	t.Logf("resources granted %v after the request", time.Since(asked).Round(time.Millisecond))
	prov.waitFor(flowWait, provider.id+"  authentication Accepted · resources Accepted")
	cons.keys("Enter")
	cons.waitFor(screenWait, "✓ Authenticated", "r requests more resources")

	cons.finish()
	prov.finish()
	requireKubeconfigSecret(t, consumer, provider)
}

package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// runLines runs the wizard in accessible mode on an in-memory terminal:
// input is what the admin types, one answer a line. When the input runs
// out the wizard ends as if quit (ErrAborted), so a test never hangs.
func runLines(t *testing.T, f *fakeBackend, o Options, input string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	if o.Backend == nil { // a test may wrap f
		o.Backend = f
	}
	o.In = strings.NewReader(input)
	o.Out = &out
	o.Environ = append([]string{"ACCESSIBLE=1", "TERM=xterm-256color"}, o.Environ...)
	o.now = func() time.Time { return fixedNow }
	err := Run(t.Context(), o)
	t.Logf("output:\n%s", out.String())
	return out.String(), err
}

func mustPrint(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("output lacks %q", l)
		}
	}
}

func lines(parts ...string) string { return strings.Join(parts, "\n") + "\n" }

func TestAccessibleAutomatedFlow(t *testing.T) {
	f := newFake()
	out, err := runLines(t, f, Options{}, lines(
		"",  // kubeconfig of your cluster: the default
		"",  // kubeconfig of the other cluster: none
		"",  // context of your cluster: consumer (current)
		"3", // context of the other cluster: none, consumer, provider
		"",  // detect: enter continues
		"",  // summary: enter finishes
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("escape sequences in the plain output")
	}
	mustPrint(t, out,
		"Kubeconfig of your cluster (local) [empty = ~/.kube/config]",
		"1. none: I cannot reach the other cluster (manual mode)",
		"Local   consumer  https://127.0.0.1:6443",
		"✓ cluster ID consumer-1",
		"→ Automated mode: this workstation reaches both clusters. Local is the consumer, remote the provider.",
		"What next? Type a key, then Return:\n  enter  continue\n",
		"  q      quit\n",
		"Authenticating consumer consumer-1 with provider provider-1",
		// Progress: one line per step done, controller Event and note.
		" INFO   (local) cluster-ids done\n",
		" INFO   (local) tenant-namespace-local done\n",
		" INFO   (remote) provider side served by in-process controller\n",
		" INFO   (remote) Event TenantAccepted: Tenant consumer-1: accepted\n",
		" INFO   (local) Authenticated as consumer-1: 2 allowed, 1 denied\n",
		"✓ Authenticated",
		"Kubeconfig Secret:   liqo-tenant-provider-1/kubeconfig-controlplane-provider-1",
		"Certificate expires: 2027-01-01 12:00 UTC (in 365d)",
		// The allowed/denied list is printed, not behind a key.
		"✗ list secrets (cluster-wide)",
		"  enter  finish\n  v      verify again\n",
	)
	if strings.Contains(out, "running") && strings.Contains(out, "⠋") {
		t.Error("a spinner in the plain output")
	}
	for _, c := range []string{"Contexts ", "Probe consumer", "Probe provider", "Stage consumer consumer provider-1", "Authenticate consumer provider", "Verify consumer provider-1"} {
		if !f.called(c) {
			t.Errorf("%q not called: %v", c, f.calls)
		}
	}
}

func TestAccessibleConsumerManualFlow(t *testing.T) {
	f := newFake()
	dir := t.TempDir()
	tenantPath, idPath := filepath.Join(dir, "tenant-for-provider-1.yaml"), filepath.Join(dir, "identity.yaml")
	if err := os.WriteFile(idPath, []byte(identityYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runLines(t, f, consumerOnly(), lines(
		"",         // detect: continue (manual, the consumer)
		"",         // provider ID: provider-1 from --remote-cluster-id
		"p", "abc", // paste a bad nonce
		"p", fakeNonce, // then the right one
		"y",         // sign it and generate the Tenant
		tenantPath,  // save the Tenant
		"f", idPath, // the Identity from a file
		"y", // apply it
		"",  // finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"→ Manual mode: only the local cluster is used (the consumer)",
		"Which provider?",
		"Cluster ID of the provider (its admin sees it with `liqo-auth-tui info`) [provider-1]",
		"Receive the nonce (or a Liqo 0.x peer info) from the provider's admin.",
		"Nothing is applied until it is valid and you confirm.",
		"  p    paste it here\n  f    read it from a file\n  esc  back: another provider\n",
		"✗ nonce has 3 characters",
		"✓ a valid nonce",
		"Sign this nonce with consumer-1's key and generate the Tenant for provider provider-1? [y/N]",
		" INFO   (local) generate-tenant done\n",
		// The hand-off: the artifact, its fingerprint, the next commands.
		"Send this Tenant to the provider's admin.",
		"# Tenant for the provider's admin (consumer key "+fpConsumer+")\napiVersion: authentication.liqo.io/v1beta1\nkind: Tenant\n",
		"# end of the Tenant",
		"Consumer key fingerprint: "+fpConsumer,
		"Compare it with the other admin out of band",
		// The next commands read the file under the name it was saved as.
		"✓ Saved to "+tenantPath+" (mode 0600).\n"+
			"Next, on the provider provider-1 (save the Tenant as tenant-for-provider-1.yaml):\n"+
			"  liqo-auth-tui apply tenant -f tenant-for-provider-1.yaml\n"+
			"  liqo-auth-tui generate identity --remote-cluster-id consumer-1 --output-file identity.yaml\n",
		"Receive the Identity from the provider's admin.",
		"✓ a valid Identity from provider provider-1, issued to this cluster's key",
		"provider CA: "+fpCA,
		"API server: https://provider.example:6443",
		"Apply the Identity of provider provider-1 on consumer-1? [y/N]",
		" INFO   (local) wait-identity-status done\n",
		"✓ Authenticated",
		"must still reach the provider's API server",
	)
	mustBeSaved(t, tenantPath, tenantYAML)
	for _, c := range []string{"GenerateTenant consumer provider-1 " + fakeNonce, "CheckIdentity consumer", "ApplyIdentity consumer", "Verify consumer provider-1"} {
		if !f.called(c) {
			t.Errorf("%q not called: %v", c, f.calls)
		}
	}
}

func TestAccessibleProviderManualSide(t *testing.T) {
	f := newFake()
	f.peers = []Peer{{ID: "consumer-1", Stage: handshake.StageAwaitTenant}}
	f.stages["provider/consumer-1"] = handshake.StageAwaitTenant
	dir := t.TempDir()
	noncePath := filepath.Join(dir, "nonce.txt")
	if err := os.WriteFile(noncePath, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(tenantYAML, "c2lnbmF0dXJl", "YmFkc2ln", 1)
	out, err := runLines(t, f, providerOnly(), lines(
		"",                             // detect: continue
		"",                             // known consumer: consumer-1
		noncePath, "n", noncePath, "y", // the file exists: keep it, then overwrite it
		"",                                       // go on: wait for the Tenant (u would make a peering user)
		"p", strings.TrimSpace(identityYAML), "", // the wrong kind
		"p", strings.TrimSpace(bad), "", // a bad signature
		"p", strings.TrimSpace(tenantYAML), "",
		"n",                                    // not yet
		"p", strings.TrimSpace(tenantYAML), "", // again, same Tenant
		"y", // apply it
		"",  // do not save the Identity
		// the input ends: quitting at the summary is not an abort
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"This provider has handshake objects for these consumers:",
		"\n1. consumer-1 (nonce created, waiting for the Tenant)\n2. another consumer: type its cluster ID\n",
		"Resuming: the cluster says nonce created, waiting for the Tenant.",
		"# nonce for the consumer's admin\n"+fakeNonce+"\n# end of the nonce",
		"Next, on the consumer consumer-1 (save the nonce as nonce.txt):\n  liqo-auth-tui generate tenant --remote-cluster-id provider-1 --nonce-file nonce.txt --output-file tenant.yaml",
		noncePath+" exists. Overwrite it? [y/N]",
		"✓ Saved to "+noncePath,
		"Paste the Tenant, then an empty line:",
		"✗ input is Identity, expected a Tenant",
		"✗ signature verification failed",
		"✓ a valid Tenant from consumer consumer-1, signed over this provider's nonce",
		"consumer key: "+fpConsumer+" (compare with the other admin)",
		"Apply the Tenant of consumer consumer-1 on provider-1 (the consumer gets a certificate and narrow permissions)? [y/N]",
		" INFO   (local) apply-tenant done\n",
		"Send this Identity to the consumer's admin.",
		"Provider CA fingerprint: "+fpCA,
		"API server advertised to the consumer: https://provider.example:6443",
		"Certificate expires: 2027-01-01 12:00 UTC (in 365d)",
		"  liqo-auth-tui verify --remote-cluster-id provider-1\n",
		"✓ Provider side done",
	)
	if b, _ := os.ReadFile(noncePath); string(b) != fakeNonce+"\n" {
		t.Fatalf("nonce file %q", b)
	}
	if n := strings.Count(strings.Join(f.calls, "\n"), "ApplyTenant"); n != 1 {
		t.Fatalf("ApplyTenant called %d times: %v", n, f.calls)
	}
}

func TestAccessibleInputEndAborts(t *testing.T) {
	f := newFake()
	out, err := runLines(t, f, providerOnly(), lines("", "consumer-1"))
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("Run: %v, want ErrAborted", err)
	}
	mustPrint(t, out, "Send this nonce to the consumer's admin.")
	if f.called("ApplyTenant") {
		t.Fatal("applied without input")
	}
}

func TestAccessibleInterruptedWhileWaitingForInput(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, interrupt := context.WithCancel(t.Context())
	defer interrupt()
	var out bytes.Buffer
	o := both()
	o.Backend, o.In, o.Out = newFake(), r, &out
	o.Environ = []string{"TERM=dumb"} // accessible too
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	// Probe again, then wait at the detect menu until Ctrl-C (the
	// signal cancels the context).
	if _, err := w.Write([]byte("r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	interrupt()
	select {
	case err := <-done:
		if !errors.Is(err, ErrAborted) {
			t.Fatalf("Run: %v, want ErrAborted", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wizard did not stop when interrupted")
	}
}

func TestAccessibleFailureOffersRetryAndBack(t *testing.T) {
	f := newFake()
	f.failOp["Authenticate"] = &Failure{Reason: "(remote) Failed waiting for tenant status to be updated: SignatureVerificationFailed: bad signature",
		Hint: "generate the Tenant again on the consumer with the provider's current nonce"}
	out, err := runLines(t, f, both(), lines(
		"",  // continue: authenticate fails
		"r", // retry: fails again
		"b", // back to detection
		"x", // not a key
		"q", "y",
	))
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("Run: %v, want ErrAborted", err)
	}
	mustPrint(t, out,
		" ERRO   (remote) Failed waiting for tenant status: (remote) Failed waiting",
		" ERRO   Something failed: (remote) Failed waiting for tenant status to be updated: SignatureVerificationFailed: bad signature\n",
		"What to do: generate the Tenant again on the consumer with the provider's current nonce\n",
		"  r  retry\n  b  back to detection\n  q  quit\n",
		"\"x\" is not one of the keys above.",
	)
	if n := strings.Count(strings.Join(f.calls, "\n"), "Authenticate"); n != 2 {
		t.Fatalf("Authenticate called %d times: %v", n, f.calls)
	}
	if n := strings.Count(out, "Detecting the clusters"); n != 2 {
		t.Fatalf("detect shown %d times, want 2 (b goes back)", n)
	}
}

func TestAccessibleDetectActionsAndEditKubeconfigs(t *testing.T) {
	f := newFake()
	out, err := runLines(t, f, both(), lines(
		"m",    // manual mode, on the local cluster
		"e",    // edit the kubeconfigs
		"", "", // default kubeconfig, no other one
		"", "3", // contexts: consumer (current), provider
		"", // automated again: continue
		"", // finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"→ Manual mode: only the local cluster is used (the consumer)",
		"  e      edit kubeconfigs\n",
		"Kubeconfig of your cluster (local) [empty = ~/.kube/config]",
		"→ Automated mode: this workstation reaches both clusters.",
		"✓ Authenticated",
	)
	if n := strings.Count(out, "Probing the clusters…"); n != 2 {
		t.Fatalf("probed %d times, want 2 (e asks again, then probes)", n)
	}
	if !f.called("Contexts ") || !f.called("Authenticate consumer provider") {
		t.Fatalf("calls %v", f.calls)
	}
}

func TestAccessibleOffersControllerInstall(t *testing.T) {
	f := newFake()
	o := both()
	o.ControllerImage = "example.com/liqo-auth-controller:v1"
	out, err := runLines(t, f, o, lines(
		"I", "n", // asked, declined
		"I", "y", // installed
		"q", "y", // quit
	))
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("Run: %v, want ErrAborted", err)
	}
	mustPrint(t, out,
		"  I      install controller\n",
		"On local (consumer-1) and remote (provider-1), this applies what `liqo-auth-tui install controller` applies",
		"a 2-replica Deployment (example.com/liqo-auth-controller:v1)",
		"Until the controller's Pods run, the wizard still serves the cluster in-process.\nInstall the in-cluster controller? [y/N]",
		"Install the in-cluster controller? [y/N]",
		"(local) Installing the controller on default kubeconfig, context consumer…",
		" INFO   (local) Deployment liqo-auth-controller created\n",
		" INFO   (remote) 2 unchanged: Namespace liqo, CustomResourceDefinition tenants.authentication.liqo.io\n",
		" INFO   (remote) Controller installed (liqo-auth-controller:v1)\n INFO   (remote) Until a Node runs its Pods, the wizard still serves this cluster in-process\n",
		"✓ (local) controller installed: 3 object(s) created or updated, 2 unchanged",
		"• controller installed, no Ready Node runs its Pods yet: served in-process meanwhile",
		"Quit before the handshake is finished? [y/N]",
	)
	if n := strings.Count(strings.Join(f.calls, "\n"), "InstallController"); n != 2 {
		t.Fatalf("InstallController called %d times: %v", n, f.calls)
	}
	if !f.called("InstallController consumer example.com/liqo-auth-controller:v1") {
		t.Fatalf("calls %v", f.calls)
	}
}

// huh's prompts each wrap the reader in a new bufio.Scanner: Read must not
// hand out more than one line, or the next prompt loses its answer.
func TestLineReaderHandsOutOneLineAtATime(t *testing.T) {
	l := newLineReader(t.Context(), strings.NewReader("a\nbb\r\nlast"))
	defer l.close()
	buf := make([]byte, 100)
	if n, err := l.Read(buf); err != nil || string(buf[:n]) != "a\n" {
		t.Fatalf("Read: %q %v", buf[:n], err)
	}
	if line, err := l.readLine(); err != nil || line != "bb" {
		t.Fatalf("readLine: %q %v", line, err)
	}
	if n, err := l.Read(buf); err != nil || string(buf[:n]) != "last" {
		t.Fatalf("Read: %q %v", buf[:n], err)
	}
	if _, err := l.Read(buf); !errors.Is(err, io.EOF) {
		t.Fatalf("Read at the end: %v", err)
	}
	if _, err := l.readLine(); !errors.Is(err, io.EOF) {
		t.Fatalf("readLine at the end: %v", err)
	}
}

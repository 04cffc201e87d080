package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func both() Options {
	return Options{Local: ClusterRef{Context: "consumer"}, Remote: ClusterRef{Context: "provider"}}
}

func TestStartSkippedWhenFlagsSayEverything(t *testing.T) {
	h := newHarness(t, newFake(), both())
	d := screenIs[*detectScreen](t, h)
	if h.m.s.mode != ModeAutomated || h.m.s.localRole != handshake.RoleConsumer {
		t.Fatalf("mode %v role %v, want automated consumer", h.m.s.mode, h.m.s.localRole)
	}
	if why := d.canContinue(); why != "" {
		t.Fatalf("cannot continue: %s", why)
	}
	h.mustSee("consumer-1", "provider-1", "Automated mode", fpConsumer, "reachable, authenticated as kubernetes-admin")
}

func TestStartFormOffersContexts(t *testing.T) {
	h := newHarness(t, newFake(), Options{})
	st := screenIs[*startScreen](t, h)
	if st.phase != phasePaths {
		t.Fatalf("phase %v, want the kubeconfig paths form", st.phase)
	}
	h.mustSee("Kubeconfig of your cluster")
	// Accept the default kubeconfig paths.
	for i := 0; i < 4 && h.m.cur == screen(st) && st.phase == phasePaths; i++ {
		h.key("enter")
	}
	if st.phase != phaseContexts {
		t.Fatalf("phase %v, want the contexts form:\n%s", st.phase, h.view())
	}
	h.mustSee("Context of your cluster", "consumer (current)")
	h.key("enter")                 // local: consumer (current)
	h.key("down", "down", "enter") // remote: none, consumer, provider
	screenIs[*detectScreen](t, h)
	if h.m.s.local.Context != "consumer" || h.m.s.remote.Context != "provider" {
		t.Fatalf("local %+v remote %+v", h.m.s.local, h.m.s.remote)
	}
	if h.m.s.mode != ModeAutomated {
		t.Fatalf("mode %v, want automated", h.m.s.mode)
	}
}

func TestStartBadKubeconfigAsksAgain(t *testing.T) {
	h := newHarness(t, newFake(), Options{Local: ClusterRef{Kubeconfig: "/nope"}})
	st := screenIs[*startScreen](t, h)
	if st.phase != phasePaths || !strings.Contains(st.err, "no such file") {
		t.Fatalf("phase %v err %q", st.phase, st.err)
	}
	h.mustSee("no such file")
}

func TestDetectUnreachableRemoteGoesManualAndAsksRole(t *testing.T) {
	f := newFake()
	f.probeErr["provider"] = errors.New("cannot use the API server https://10.0.0.1:6443: connection refused: connect: connection refused (check that the API server is running and the address and port are right)")
	h := newHarness(t, f, both())
	d := screenIs[*detectScreen](t, h)
	s := h.m.s
	if s.mode != ModeManual || s.manualSide != handshake.Local || s.localRole != handshake.RoleUnknown {
		t.Fatalf("mode %v side %v role %v", s.mode, s.manualSide, s.localRole)
	}
	h.mustSee("connection refused", "Manual mode", "press c (consumer) or p (provider)")
	h.key("enter") // not yet: the role is unknown
	screenIs[*detectScreen](t, h)
	h.key("p")
	if s.selfRole() != handshake.RoleProvider || d.canContinue() != "" {
		t.Fatalf("role %v, can continue: %q", s.selfRole(), d.canContinue())
	}
	h.key("enter")
	screenIs[*peerScreen](t, h)
}

func TestDetectOnlyRemoteReachableUsesItAsProvider(t *testing.T) {
	f := newFake()
	f.probeErr["consumer"] = errors.New("cannot use the API server https://x:6443: 401 unauthorized: Unauthorized")
	h := newHarness(t, f, both())
	s := h.m.s
	if s.mode != ModeManual || s.manualSide != handshake.Remote || s.selfRole() != handshake.RoleProvider {
		t.Fatalf("mode %v side %v role %v", s.mode, s.manualSide, s.selfRole())
	}
}

func TestDetectOverrideModeAndSwapRoles(t *testing.T) {
	h := newHarness(t, newFake(), both())
	s := h.m.s
	h.key("m")
	if s.mode != ModeManual || s.manualSide != handshake.Local {
		t.Fatalf("m: mode %v side %v", s.mode, s.manualSide)
	}
	h.key("tab")
	if s.manualSide != handshake.Remote || s.selfRole() != handshake.RoleProvider {
		t.Fatalf("tab: side %v role %v", s.manualSide, s.selfRole())
	}
	h.key("s")
	if s.localRole != handshake.RoleProvider {
		t.Fatalf("s: local role %v", s.localRole)
	}
	h.key("m")
	if s.mode != ModeAutomated {
		t.Fatalf("m again: mode %v", s.mode)
	}
	p, _ := s.provider()
	if p.Context != "consumer" {
		t.Fatalf("after swap the provider is %q", p.Context)
	}
}

func TestDetectOffersInit(t *testing.T) {
	f := newFake()
	f.infos["provider"].ClusterID, f.infos["provider"].KeyFingerprint = "", ""
	h := newHarness(t, f, both())
	h.mustSee("no cluster ID", "press i to run init")
	h.key("enter")
	screenIs[*detectScreen](t, h)
	h.key("i")
	if !f.called("Init provider") {
		t.Fatal("init did not run on the provider")
	}
	d := screenIs[*detectScreen](t, h)
	if why := d.canContinue(); why != "" {
		t.Fatalf("after init: %s", why)
	}
	h.mustSee("(remote) init: cluster provider-1 is ready for the handshake")
}

func TestAutomatedFlowEndsOnSummary(t *testing.T) {
	f := newFake()
	h := newHarness(t, f, both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	for _, c := range []string{"Stage consumer consumer provider-1", "Authenticate consumer provider", "Verify consumer provider-1"} {
		if !f.called(c) {
			t.Fatalf("%q not called: %v", c, f.calls)
		}
	}
	h.mustSee("Authenticated", "kubeconfig-controlplane-provider-1", "Authenticated as:", "consumer-1",
		"Allowed:", "2", "Denied:", "1", "liqo.io, system:authenticated")
	h.key("d")
	h.mustSee("list secrets (cluster-wide)")
	h.key("enter")
	if !h.quit || h.m.aborted {
		t.Fatalf("enter on the summary: quit %v aborted %v", h.quit, h.m.aborted)
	}
}

func TestAutomatedAlreadyAuthenticatedGoesToSummary(t *testing.T) {
	f := newFake()
	f.stages["consumer/provider-1"] = handshake.StageAuthenticated
	h := newHarness(t, f, both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	if f.called("Authenticate") {
		t.Fatal("authenticated again")
	}
	h.mustSee("Already authenticated")
}

func TestErrorScreenAndRetry(t *testing.T) {
	f := newFake()
	f.failOp["Authenticate"] = &Failure{Reason: "Failed waiting for tenant status to be updated: SignatureVerificationFailed: bad signature",
		Hint: "generate the Tenant again on the consumer with the provider's current nonce"}
	h := newHarness(t, f, both())
	h.key("enter")
	screenIs[*errorScreen](t, h)
	h.mustSee("SignatureVerificationFailed", "What to do", "generate the Tenant again", "r retry")
	delete(f.failOp, "Authenticate")
	h.key("r")
	screenIs[*summaryScreen](t, h)
	h.key("enter")
}

func TestErrorScreenBack(t *testing.T) {
	e := newErrorScreen(newSession(t.Context(), Options{}), errors.New("boom"), nil)
	if e.keys.Retry.Enabled() {
		t.Fatal("retry offered without a retry")
	}
	_, cmd := e.Update(keyPress("b"))
	if _, ok := cmd().(gotoDetectMsg); !ok {
		t.Fatal("b does not go back to detection")
	}
}

func providerOnly() Options {
	return Options{Local: ClusterRef{Context: "provider"}, Role: handshake.RoleProvider}
}

func TestProviderManualFlow(t *testing.T) {
	f := newFake()
	f.peers = []Peer{{ID: "consumer-1", Stage: handshake.StageAwaitTenant}}
	f.stages["provider/consumer-1"] = handshake.StageAwaitTenant
	h := newHarness(t, f, providerOnly())
	h.mustSee("Manual mode", "the provider")
	h.key("enter")
	screenIs[*peerScreen](t, h)
	h.mustSee("consumer-1", "nonce created")
	h.key("down") // pick the known consumer
	h.key("enter")
	ho := screenIs[*handoffScreen](t, h)
	if ho.art.Kind != handshake.KindNonce {
		t.Fatalf("hand-off of %v", ho.art.Kind)
	}
	h.mustSee(fakeNonce, "generate tenant --remote-cluster-id provider-1 --nonce-file nonce.txt", "Resuming")
	h.key("c")
	if len(h.copied) != 1 || strings.TrimSpace(h.copied[0]) != fakeNonce {
		t.Fatalf("copied %q", h.copied)
	}
	h.mustSee("Copied to the clipboard.")
	h.key("enter")
	r := screenIs[*receiveScreen](t, h)
	if r.kind != handshake.KindTenant {
		t.Fatalf("receiving %v", r.kind)
	}
	h.send(tea.PasteMsg{Content: identityYAML})
	h.mustSee("input is Identity, expected a Tenant")
	if r.keys.Apply.Enabled() {
		t.Fatal("an invalid artifact can be applied")
	}
	h.key("ctrl+s") // refused while invalid
	if r.confirm {
		t.Fatal("confirmation offered for an invalid Tenant")
	}
	h.key("ctrl+l")
	h.send(tea.PasteMsg{Content: tenantYAML})
	h.mustSee("a valid Tenant from consumer consumer-1", fpConsumer)
	if f.called("ApplyTenant") {
		t.Fatal("applied before confirmation")
	}
	h.key("ctrl+s")
	h.mustSee("Apply the Tenant of consumer consumer-1")
	h.key("n")
	if r.confirm || f.called("ApplyTenant") {
		t.Fatal("n did not cancel")
	}
	h.key("ctrl+s", "y")
	ho = screenIs[*handoffScreen](t, h)
	if ho.art.Kind != handshake.KindIdentity {
		t.Fatalf("hand-off of %v", ho.art.Kind)
	}
	h.mustSee(fpCA, "apply identity -f identity.yaml", "verify --remote-cluster-id provider-1", "https://provider.example:6443")
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Provider side done", "consumer-1")
}

func TestProviderResumesAtGenerateIdentity(t *testing.T) {
	f := newFake()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	o := providerOnly()
	o.PeerID = "consumer-1"
	h := newHarness(t, f, o)
	h.key("enter") // detect → peer (prefilled by --remote-cluster-id)
	h.key("enter") // peer → resume
	ho := screenIs[*handoffScreen](t, h)
	if ho.art.Kind != handshake.KindIdentity || f.called("CreateNonce") {
		t.Fatalf("landed on %v; calls %v", ho.art.Kind, f.calls)
	}
	h.mustSee("Tenant accepted")
}

func consumerOnly() Options {
	return Options{Local: ClusterRef{Context: "consumer"}, Role: handshake.RoleConsumer, PeerID: "provider-1"}
}

func TestConsumerManualFlow(t *testing.T) {
	f := newFake()
	dir := t.TempDir()
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	r := screenIs[*receiveScreen](t, h)
	if r.kind != handshake.KindNonce {
		t.Fatalf("receiving %v", r.kind)
	}
	h.send(tea.PasteMsg{Content: "abc"})
	h.mustSee("nonce has 3 characters")
	h.key("ctrl+l")
	h.send(tea.PasteMsg{Content: fakeNonce + "\n"})
	h.mustSee("a valid nonce")
	h.key("ctrl+s", "y")
	if !f.called("GenerateTenant consumer provider-1 " + fakeNonce) {
		t.Fatalf("calls %v", f.calls)
	}
	ho := screenIs[*handoffScreen](t, h)
	h.mustSee("kind: Tenant", fpConsumer, "apply tenant -f tenant.yaml", "generate identity --remote-cluster-id consumer-1")
	// Save to a file (0600).
	h.key("s")
	if !ho.saving {
		t.Fatal("s does not ask for a path")
	}
	h.mustSee("save as: ./tenant.yaml")
	path := filepath.Join(dir, "tenant.yaml")
	ho.path.SetValue(path)
	h.key("enter")
	h.mustSee("Saved to " + path)
	mustBeSaved(t, path, tenantYAML)
	// Saving again asks before overwriting.
	h.key("s")
	ho.path.SetValue(path)
	h.key("enter")
	h.mustSee("exists: enter again overwrites it")
	h.key("enter")
	h.mustSee("Saved to")
	// Next: receive the Identity from a file.
	h.key("enter")
	r = screenIs[*receiveScreen](t, h)
	if r.kind != handshake.KindIdentity {
		t.Fatalf("receiving %v", r.kind)
	}
	idPath := filepath.Join(dir, "identity.yaml")
	if err := os.WriteFile(idPath, []byte(identityYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	h.key("tab")
	if !r.fileMode {
		t.Fatal("tab does not switch to a file path")
	}
	r.path.SetValue(idPath)
	h.key("enter")
	h.mustSee("a valid Identity from provider provider-1", fpCA)
	h.key("ctrl+s", "y")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Authenticated", "kubeconfig-controlplane-provider-1", "Allowed:", "must still reach the provider")
	if !f.called("Verify consumer provider-1") {
		t.Fatal("verify not run")
	}
}

func TestConsumerWithKubeconfigSecretLandsOnSummary(t *testing.T) {
	f := newFake()
	f.stages["consumer/provider-1"] = handshake.StageAuthenticated
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	screenIs[*summaryScreen](t, h)
	if f.called("GenerateTenant") || f.called("ApplyIdentity") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSee("Authenticated", "Resuming", "Allowed:")
}

func TestConsumerSignedNonceResumesWithTenant(t *testing.T) {
	f := newFake()
	f.stages["consumer/provider-1"] = handshake.StageAwaitIdentity
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	screenIs[*handoffScreen](t, h)
	if !f.called("GenerateTenant consumer provider-1 ") {
		t.Fatalf("calls %v", f.calls)
	}
}

func TestReceiveRefusesArtifactOfAnotherPeer(t *testing.T) {
	f := newFake()
	o := providerOnly()
	o.PeerID = "consumer-9"
	h := newHarness(t, f, o)
	h.key("enter", "enter", "enter")
	screenIs[*receiveScreen](t, h)
	h.send(tea.PasteMsg{Content: tenantYAML})
	h.mustSee("is from cluster consumer-1, but this handshake is with consumer-9")
}

func TestPeerScreenValidatesID(t *testing.T) {
	h := newHarness(t, newFake(), providerOnly())
	h.key("enter")
	screenIs[*peerScreen](t, h)
	h.typeText("Bad_ID")
	h.key("enter")
	h.mustSee("is not a cluster ID")
	h.key("esc")
	screenIs[*detectScreen](t, h)
	h.key("enter")
	h.typeText("provider-1")
	h.key("enter")
	h.mustSee("this cluster's own ID")
}

func TestQuitMidFlowAsksToConfirm(t *testing.T) {
	h := tenantHandoff(t) // mid-flow: the Tenant was generated
	h.key("q")
	if !h.m.confirmQuit || h.quit {
		t.Fatal("q mid-flow did not ask")
	}
	h.mustSee("Quit before the handshake is finished?")
	h.key("n")
	if h.m.confirmQuit || h.quit {
		t.Fatal("n did not stay")
	}
	h.key("ctrl+c", "y")
	if !h.quit || !h.m.aborted {
		t.Fatalf("quit %v aborted %v", h.quit, h.m.aborted)
	}
}

func TestQKeyGoesToTextFields(t *testing.T) {
	h := newHarness(t, newFake(), providerOnly())
	h.key("enter")
	p := screenIs[*peerScreen](t, h)
	h.typeText("qq")
	if h.m.confirmQuit || p.input.Value() != "qq" {
		t.Fatalf("q did not type: %q", p.input.Value())
	}
}

func TestHelpToggles(t *testing.T) {
	h := newHarness(t, newFake(), both())
	h.mustSee("enter continue", "? more keys")
	h.key("?")
	if !h.m.help.ShowAll {
		t.Fatal("? does not show all keys")
	}
	h.mustSee("edit kubeconfigs")
}

func TestPrintLeavesAltScreen(t *testing.T) {
	h := newHarness(t, newFake(), consumerOnly())
	h.key("enter", "enter")
	h.send(tea.PasteMsg{Content: fakeNonce})
	h.key("ctrl+s", "y")
	screenIs[*handoffScreen](t, h)
	if !h.m.View().AltScreen {
		t.Fatal("not on the alternate screen")
	}
	h.key("p")
	if h.m.View().AltScreen {
		t.Fatal("p did not leave the alternate screen")
	}
	h.mustSee("Printed below")
}

func TestEveryScreenFits80x24(t *testing.T) {
	f := newFake()
	h := newHarness(t, f, providerOnly())
	check := func(name string) {
		t.Helper()
		for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 16}} {
			h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			out := h.m.render()
			lines := strings.Split(out, "\n")
			if len(lines) > size[1] {
				t.Errorf("%s at %dx%d: %d lines", name, size[0], size[1], len(lines))
			}
			for _, l := range lines {
				if w := lipgloss.Width(l); w > size[0] {
					t.Errorf("%s at %dx%d: line of %d cells: %q", name, size[0], size[1], w, l)
				}
			}
		}
	}
	check("detect")
	h.key("enter")
	check("peer")
	h.typeText("consumer-1")
	h.key("enter")
	check("handoff")
	h.key("enter")
	h.send(tea.PasteMsg{Content: tenantYAML})
	check("receive")
	h.key("ctrl+s")
	check("receive-confirm")
	h.key("y")
	check("handoff-identity")
	h.key("enter")
	check("summary")
}

func TestDetectOffersControllerInstall(t *testing.T) {
	f := newFake()
	o := both()
	o.ControllerImage = "example.com/liqo-auth-controller:v1"
	h := newHarness(t, f, o)
	d := screenIs[*detectScreen](t, h)
	h.mustSee("no Liqo · no controller: the wizard serves it in-process (I installs one)")
	if !d.Keys().(detectKeys).Install.Enabled() {
		t.Fatal("no install offer on clusters without Liqo or a controller")
	}
	h.key("I")
	h.mustSee("Install the in-cluster controller?", "On local (consumer-1) and remote (provider-1), this applies",
		"(example.com/liqo-auth-controller:v1)", "Until the controller's Pods run, the wizard still serves the", "y install", "n/esc cancel")
	h.key("enter") // only y installs
	h.key("n")
	if d.confirmInstall || f.called("InstallController") {
		t.Fatalf("n did not cancel: %v", f.calls)
	}
	h.mustSee("Automated mode")
	h.key("I", "y")
	r := screenIs[*runScreen](t, h)
	for _, c := range []string{"InstallController consumer example.com/liqo-auth-controller:v1", "InstallController provider example.com/liqo-auth-controller:v1"} {
		if !f.called(c) {
			t.Fatalf("%q not called: %v", c, f.calls)
		}
	}
	// The run screen stays on what changed until enter.
	h.mustSee("Deployment liqo-auth-controller created", "2 unchanged: Namespace liqo, CustomResourceDefinition tenants.authentication.liqo.io",
		"✓ (local) Controller installed (liqo-auth-controller:v1)",
		"Until a Node runs its Pods, the wizard still serves this cluster in-process", "Press enter to continue", "enter continue",
		"install controller --image example.com/liqo-auth-controller:v1 --context provider")
	if !r.finished {
		t.Fatal("the install did not finish")
	}
	// At 80×24 the list of both clusters does not fit: it scrolls.
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if n := len(strings.Split(h.m.render(), "\n")); n > 24 {
		t.Fatalf("%d lines at 80x24", n)
	}
	h.mustSee("earlier line(s)", "↑/↓ scroll", "(remote) Controller installed")
	for range 30 {
		h.key("up")
	}
	h.mustSee("(local) Controller installed", "later line(s)")
	if strings.Contains(h.view(), "earlier line(s)") {
		t.Fatalf("not scrolled to the top:\n%s", h.view())
	}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.key("enter")
	d = screenIs[*detectScreen](t, h)
	h.mustSee("controller installed, no Ready Node runs its Pods yet: served in-process meanwhile",
		"(local) controller installed: 3 object(s) created or updated, 2 unchanged")
	if d.Keys().(detectKeys).Install.Enabled() {
		t.Fatal("install offered again for a controller just installed")
	}
	// The handshake goes on as before: in-process until the Pods run.
	h.key("enter")
	screenIs[*summaryScreen](t, h)
}

func TestDetectNoInstallOfferWithLiqoOrController(t *testing.T) {
	f := newFake()
	f.infos["consumer"].LiqoInstalled = true
	f.infos["provider"].Controller = true
	h := newHarness(t, f, both())
	d := screenIs[*detectScreen](t, h)
	if d.Keys().(detectKeys).Install.Enabled() {
		t.Fatal("install offered on clusters served by Liqo or the controller")
	}
	h.mustSee("Liqo installed: its controller-manager serves this cluster", "liqo-auth controller running in the cluster")
	h.key("I")
	if d.confirmInstall {
		t.Fatal("I asks to install anyway")
	}
	// Manual mode offers it for the cluster in use only.
	f = newFake()
	f.infos["consumer"].Controller = true
	h = newHarness(t, f, both())
	h.key("m", "tab") // manual, on the remote cluster (no controller)
	d = screenIs[*detectScreen](t, h)
	if got := d.uncontrolled(); len(got) != 1 || got[0] != handshake.Remote {
		t.Fatalf("offered for %v, want remote", got)
	}
}

func TestDetectInstallFailureShowsWhatWasApplied(t *testing.T) {
	f := newFake()
	f.failOp["InstallController"] = &Failure{Reason: "cannot use the API server https://127.0.0.1:7443: 403 forbidden: clusterroles.rbac.authorization.k8s.io is forbidden",
		Hint: "2 object(s) were applied before the failure"}
	o := Options{Local: ClusterRef{Context: "provider"}, Role: handshake.RoleProvider}
	h := newHarness(t, f, o)
	h.key("I", "y")
	screenIs[*errorScreen](t, h)
	h.mustSee("403 forbidden", "2 object(s) were applied before the failure", "r retry")
	delete(f.failOp, "InstallController")
	h.key("r")
	screenIs[*runScreen](t, h)
	h.mustSee("Deployment liqo-auth-controller created")
}

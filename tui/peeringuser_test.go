package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// helpHas tells whether the screen's help (all of it) lists desc, enabled.
func helpHas(h *harness, desc string) bool {
	for _, group := range h.m.cur.Keys().FullHelp() {
		for _, k := range group {
			if k.Enabled() && k.Help().Desc == desc {
				return true
			}
		}
	}
	return false
}

const peeringUserHelp = "restricted kubeconfig (peering user)"

// nonceHandoff brings the provider to the hand-off of the nonce for
// consumer-1.
func nonceHandoff(t *testing.T, f *fakeBackend) *harness {
	t.Helper()
	h := newHarness(t, f, providerOnly())
	h.key("enter")
	h.typeText("consumer-1")
	h.key("enter")
	if ho := screenIs[*handoffScreen](t, h); ho.art.Kind != handshake.KindNonce {
		t.Fatalf("hand-off of %v", ho.art.Kind)
	}
	return h
}

// The provider's nonce hand-off offers a third way: u makes a peering user
// whose kubeconfig is handed over like the artifacts, but never copied.
func TestProviderHandsOverAPeeringUser(t *testing.T) {
	f := newFake()
	h := nonceHandoff(t, f)
	if !helpHas(h, peeringUserHelp) {
		t.Fatal("the nonce's hand-off does not offer a peering user")
	}
	h.key("?")
	h.mustSee("u     restricted kubeconfig (peering user)", "Third way: u makes a restricted kubeconfig (peering user)")
	h.key("?")
	h.key("u")
	if !f.called("GeneratePeeringUser provider consumer-1") {
		t.Fatalf("calls %v", f.calls)
	}
	ho := screenIs[*handoffScreen](t, h)
	if ho.art.Kind != handshake.KindPeeringUser {
		t.Fatalf("hand-off of %v", ho.art.Kind)
	}
	if helpHas(h, peeringUserHelp) {
		t.Fatal("the peering user's hand-off offers another one")
	}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 50}) // room for the whole kubeconfig
	h.mustSee("Send this peering-user kubeconfig to the consumer's admin",
		"client-key-data: REDACTED", "client-certificate-data: DATA+OMITTED",
		"Peering user: "+peeringUserName, "API server: https://provider.example:6443 (the consumer's admin must reach it)",
		"Certificate expires: 2027-01-01 12:00 UTC",
		"Next, on the consumer consumer-1 (save the peering-user kubeconfig as peering-user.kubeconfig):",
		"liqo-auth-tui authenticate --kubeconfig <your kubeconfig> --remote-kubeconfig peering-user.kubeconfig",
		"# or the wizard: liqo-auth-tui --remote-kubeconfig peering-user.kubeconfig",
		"delete peering-user --consumer-cluster-id consumer-1 revokes its rights")
	if v := h.view(); strings.Contains(v, "UFJJVkFURSBLRVk=") || strings.Contains(v, "Q0VSVElGSUNBVEU=") {
		t.Fatalf("the key or certificate is shown:\n%s", v)
	}

	// Copy is refused: it carries credentials.
	if ho.keys.Copy.Enabled() {
		t.Fatal("copy offered")
	}
	h.key("c")
	if len(h.copied) != 0 {
		t.Fatalf("copied %q", h.copied)
	}
	h.mustSee("This peering-user kubeconfig carries credentials: it is never put on the clipboard. Use s to save it.")

	// Save writes the whole kubeconfig, 0600; the next commands read it
	// under that name.
	path := filepath.Join(t.TempDir(), "pu-consumer-1.kubeconfig")
	h.key("s")
	h.mustSee("save as: ./peering-user.kubeconfig")
	ho.path.SetValue(path)
	h.key("enter")
	h.mustSee("Saved to "+path+" (mode 0600).", "--remote-kubeconfig pu-consumer-1.kubeconfig")
	mustBeSaved(t, path, peeringUserKubeconfig)

	// Print is allowed, whole, with a warning.
	h.key("p")
	h.mustSee("WITH ITS PRIVATE KEY", "clear it once sent")
	if !ho.statusErr {
		t.Fatal("printing the key is not a warning")
	}
	printed := ho.printed()
	if !strings.Contains(printed, "# WARNING: it holds the user's private key") || !strings.Contains(printed, strings.TrimSpace(peeringUserKubeconfig)) {
		t.Fatalf("printed %q", printed)
	}

	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Peering user made", "Consumer:", "consumer-1", peeringUserName, "--remote-kubeconfig",
		"liqo-auth-tui delete peering-user --consumer-cluster-id consumer-1")
}

// Only the provider's nonce offers it: not the consumer's Tenant, nor the
// Identity.
func TestPeeringUserOfferedOnlyForTheNonce(t *testing.T) {
	f := newFake()
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	h.send(tea.PasteMsg{Content: fakeNonce})
	h.key("ctrl+s", "y")
	screenIs[*handoffScreen](t, h)
	if helpHas(h, peeringUserHelp) {
		t.Fatal("the Tenant's hand-off offers a peering user")
	}
	h.key("u")
	screenIs[*handoffScreen](t, h)
	if f.called("GeneratePeeringUser") {
		t.Fatal("u made a peering user on the consumer")
	}

	h = nonceHandoff(t, f)
	h.key("enter")
	h.send(tea.PasteMsg{Content: tenantYAML})
	h.key("ctrl+s", "y")
	if ho := screenIs[*handoffScreen](t, h); ho.art.Kind != handshake.KindIdentity || helpHas(h, peeringUserHelp) {
		t.Fatalf("%v hand-off offers a peering user", ho.art.Kind)
	}
}

// A failed peering user goes to the error screen, whose retry makes it again.
func TestPeeringUserFailureRetries(t *testing.T) {
	f := newFake()
	h := nonceHandoff(t, f)
	f.failOp["GeneratePeeringUser"] = &Failure{Reason: "(local) Unable to generate the peering user: forbidden", Hint: "run it as the provider's admin"}
	h.key("u")
	screenIs[*errorScreen](t, h)
	h.mustSee("Unable to generate the peering user")
	delete(f.failOp, "GeneratePeeringUser")
	h.key("r")
	if ho := screenIs[*handoffScreen](t, h); ho.art.Kind != handshake.KindPeeringUser {
		t.Fatalf("hand-off of %v", ho.art.Kind)
	}
}

// The consumer's admin with the peering user's kubeconfig as the remote
// one: the probe is restricted, the detect screen says so and goes on to
// the automated flow.
func TestDetectRestrictedRemoteGoesAutomated(t *testing.T) {
	f := newFake()
	p := f.infos["provider"]
	p.User, p.Groups, p.KeyAlgorithm, p.KeyFingerprint, p.Restricted = peeringUserName, []string{"liqo.io"}, "", "", true
	h := newHarness(t, f, both())
	d := screenIs[*detectScreen](t, h)
	if h.m.s.mode != ModeAutomated || d.canContinue() != "" {
		t.Fatalf("mode %v, can continue: %q", h.m.s.mode, d.canContinue())
	}
	h.mustSee("authenticated as "+peeringUserName, "cluster ID provider-1", restrictedLine)
	_, remote, _ := strings.Cut(h.view(), "Remote  provider")
	if strings.Contains(remote, "I installs one") || strings.Contains(remote, "no authentication keys") {
		t.Fatalf("offers init or install to a restricted user:\n%s", remote)
	}
	if len(d.unready()) != 0 || len(d.uncontrolled()) != 1 || d.uncontrolled()[0] != handshake.Local {
		t.Fatalf("unready %v, uncontrolled %v", d.unready(), d.uncontrolled())
	}
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	if !f.called("Authenticate consumer provider") {
		t.Fatalf("calls %v", f.calls)
	}
}

// In line mode the nonce's hand-off offers it in its menu, then hands the
// kubeconfig over masked, saved on request.
func TestAccessibleProviderHandsOverAPeeringUser(t *testing.T) {
	f := newFake()
	f.peers = []Peer{{ID: "consumer-1", Stage: handshake.StageAwaitTenant}}
	f.stages["provider/consumer-1"] = handshake.StageAwaitTenant
	path := filepath.Join(t.TempDir(), "peering-user.kubeconfig")
	out, err := runLines(t, f, providerOnly(), lines(
		"",   // detect: continue
		"",   // known consumer: consumer-1
		"",   // do not save the nonce
		"u",  // a peering user instead
		path, // save its kubeconfig
		"",   // summary: finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"Third way: u makes a restricted kubeconfig (peering user)",
		"What next? Type a key, then Return:\n  enter  next\n  u      restricted kubeconfig (peering user)\n  q      quit\n",
		" INFO   (local) generate-peering-user done\n",
		"Send this peering-user kubeconfig to the consumer's admin.",
		"client-key-data: REDACTED",
		"# credentials masked: save it to a file to send the full peering-user kubeconfig",
		"Peering user: "+peeringUserName,
		"✓ Saved to "+path+" (mode 0600).\n"+
			"Next, on the consumer consumer-1 (save the peering-user kubeconfig as peering-user.kubeconfig):\n"+
			"  liqo-auth-tui authenticate --kubeconfig <your kubeconfig> --remote-kubeconfig peering-user.kubeconfig\n",
		"✓ Peering user made",
	)
	if strings.Contains(out, "UFJJVkFURSBLRVk=") {
		t.Error("the key is printed")
	}
	mustBeSaved(t, path, peeringUserKubeconfig)
	if !f.called("GeneratePeeringUser provider consumer-1") {
		t.Fatalf("calls %v", f.calls)
	}
}

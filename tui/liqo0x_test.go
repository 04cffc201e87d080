package tui

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// liqo0xProvider makes the fake's provider a Liqo 0.x cluster (no keys:
// 0.x authenticates with a token) and the consumer run gen.
func liqo0xProvider(f *fakeBackend, consumerGen string) *fakeBackend {
	p := f.infos["provider"]
	p.LiqoFlavor, p.LiqoVersion, p.LiqoLine, p.KeyAlgorithm, p.KeyFingerprint = "0.x", "v0.10.3", "v0.4+", "", ""
	f.infos["consumer"].LiqoFlavor = consumerGen
	if consumerGen == "0.x" {
		c := f.infos["consumer"]
		c.LiqoVersion, c.LiqoLine, c.KeyAlgorithm, c.KeyFingerprint = "v0.10.3", "v0.4+", "", ""
	}
	return f
}

// flat is the screen on one line (wrapped prose joined again).
func (h *harness) flat() string {
	return oneLine(strings.NewReplacer("│", " ", "║", " ").Replace(h.view()))
}

func (h *harness) mustSeeFlat(parts ...string) {
	h.t.Helper()
	v := h.flat()
	for _, p := range parts {
		if !strings.Contains(v, p) {
			h.t.Fatalf("screen lacks %q:\n%s", p, h.view())
		}
	}
}

func (h *harness) mustNotSee(parts ...string) {
	h.t.Helper()
	v := h.view()
	for _, p := range parts {
		if strings.Contains(v, p) {
			h.t.Fatalf("screen shows %q:\n%s", p, v)
		}
	}
}

func wantOpts(t *testing.T, f *fakeBackend, want ...Liqo0xOptions) {
	t.Helper()
	if got := f.liqo0xOpts(); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("options passed %+v, want %+v (calls %v)", got, want, f.calls)
	}
}

// 1. A 0.x provider takes the 0.x flow, said on the detect screen; no init,
// keys or controller are asked for; a refused pair does not take it.
func TestLiqo0xDetectSaysWhichFlow(t *testing.T) {
	f := liqo0xProvider(newFake(), "none")
	h := newHarness(t, f, both())
	d := screenIs[*detectScreen](t, h)
	if !h.m.s.liqo0xFlow() || d.canContinue() != "" {
		t.Fatalf("Liqo 0.x flow %v, can continue %q", h.m.s.liqo0xFlow(), d.canContinue())
	}
	h.mustSeeFlat("Liqo 0.x token authentication: this tool, as the consumer's Liqo 0.x would, sends the provider's token")
	if len(d.unready()) != 0 || len(d.uncontrolled()) != 0 {
		t.Fatalf("unready %v uncontrolled %v: init or install offered in the 0.x flow", d.unready(), d.uncontrolled())
	}

	// The same pair refused by the backend: no 0.x flow, the refusal.
	f = liqo0xProvider(newFake(), "v1")
	f.pairProblems = map[string]string{"consumer-1/provider-1": refusedLine}
	h = newHarness(t, f, both())
	if h.m.s.liqo0xFlow() {
		t.Fatal("a refused pair takes the 0.x flow")
	}
	h.mustNotSee("Liqo 0.x token authentication")

	// Manual, on the provider: the peer info flow; a v0.2 provider refused.
	f = liqo0xProvider(newFake(), "")
	h = newHarness(t, f, providerOnly())
	h.mustSeeFlat("Liqo 0.x token authentication: the provider's peer info")
	f = liqo0xProvider(newFake(), "")
	f.infos["provider"].LiqoLine, f.infos["provider"].LiqoVersion = "v0.2", "v0.2.1"
	h = newHarness(t, f, providerOnly())
	h.mustSeeFlat("this cluster runs Liqo v0.2.1: not supported (fake)")
	h.key("enter")
	screenIs[*detectScreen](t, h)
	if f.called("PeerInfo") {
		t.Fatal("peer info of an unsupported provider")
	}
}

// 2. Automated, this tool as the 0.x consumer: the confirmation says what
// cannot be undone and the TLS policy, sends nothing before enter, has no
// peering toggle, and the run ends on the 0.x summary.
func TestLiqo0xAutomatedToolConsumer(t *testing.T) {
	f := liqo0xProvider(newFake(), "ours")
	h := newHarness(t, f, both())
	h.key("enter")
	c := screenIs[*liqo0xConfirmScreen](t, h)
	h.mustSeeFlat("The provider issues ONE identity per cluster ID", "A failed or repeated request cannot be undone by the consumer",
		"verification is skipped, as Liqo does", "enter authenticate • esc back")
	if c.Keys().(liqo0xConfirmKeys).Peer.Enabled() {
		t.Fatal("peering toggle offered to a consumer without Liqo 0.x")
	}
	h.key("p")
	if f.called("AuthenticateLiqo0x") || f.called("Stage") {
		t.Fatalf("sent before confirmation: %v", f.calls)
	}
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	if !f.called("AuthenticateLiqo0x consumer provider peer=false reissue=false") || f.called("Authenticate ") || f.called("Verify") {
		t.Fatalf("calls %v", f.calls)
	}
	wantOpts(t, f, Liqo0xOptions{})
	h.mustSeeFlat("Authenticated with the Liqo 0.x provider", "Consumer: consumer-1", "Provider: provider-1",
		"Authenticated by: this tool (the consumer has no Liqo 0.x)", "Identity Secret: liqo-tenant-provider-1/kubeconfig-controlplane-provider-1",
		"Authenticates as: consumer-1", "Groups: liqo.io, system:authenticated", "Issued: 2025-12-01 09:30 UTC",
		"Certificate expires: 2027-01-01 12:00 UTC", "TLS: skipped: the auth server's certificate could not be verified")
	h.mustNotSee("already held", "request resources", "DISABLED")
}

// 2. Automated with a Liqo 0.x consumer: p toggles outgoing peering (off
// by default) and the choice reaches the backend; esc goes back.
func TestLiqo0xAutomatedLiqoConsumerPeerToggle(t *testing.T) {
	f := liqo0xProvider(newFake(), "0.x")
	f.liqo0x.result = &Liqo0xResult{ConsumerID: "consumer-1", ProviderID: "provider-1", IdentitySecret: "liqo/liqo-identity-x7k2p",
		User: "consumer-1", Groups: []string{"liqo.io"}, TLSVerified: true, NotAfter: fakeExpiry}
	h := newHarness(t, f, both())
	h.mustSeeFlat("the consumer's own Liqo 0.x sends the provider's token")
	h.key("enter")
	screenIs[*liqo0xConfirmScreen](t, h)
	h.mustSeeFlat("[ ] also enable outgoing peering", "off: authentication only; peering stays liqoctl's", "remote-token-provider-1", "p outgoing peering on/off")
	h.mustNotSee("ONE identity")
	h.key("esc")
	screenIs[*detectScreen](t, h)
	h.key("enter", "p")
	h.mustSeeFlat("[x] also enable outgoing peering")
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	wantOpts(t, f, Liqo0xOptions{Peer: true})
	h.mustSeeFlat("Authenticated by: the consumer's Liqo 0.x", "Identity Secret: liqo/liqo-identity-x7k2p", "Outgoing peering: on",
		"TLS: verified", "Peering stays liqoctl's")
}

// 5. An identity the consumer already held is said as such, with its
// dates: not "token accepted".
func TestLiqo0xSummaryAlreadyAuthenticated(t *testing.T) {
	f := liqo0xProvider(newFake(), "0.x")
	f.liqo0x.result = &Liqo0xResult{ConsumerID: "consumer-1", ProviderID: "provider-1", AlreadyAuthenticated: true,
		IdentitySecret: "liqo/liqo-identity-x7k2p", User: "consumer-1", Issued: fakeIssued, NotAfter: fakeExpiry, AuthenticationDisabled: true}
	h := newHarness(t, f, both())
	h.key("enter", "enter")
	screenIs[*summaryScreen](t, h)
	h.mustSeeFlat("Already authenticated with the Liqo 0.x provider",
		"The consumer already held an identity for this provider (issued 2025-12-01 09:30 UTC, expires 2027-01-01 12:00 UTC): Liqo reused it and the token was not sent.",
		"authentication is DISABLED on this Liqo 0.x provider", "anyone who reaches its auth server can peer")
	if v := strings.ToLower(h.flat()); strings.Contains(v, "token accepted") || strings.Contains(v, "tls: skipped") {
		t.Fatalf("reports the token as accepted, or TLS as skipped:\n%s", h.view())
	}
}

// 3. Manual provider: the peer info's Preview with the token masked, the
// provider's warning first, the liqoctl equivalent masked; r reveals and
// hides; copy and save give the whole Data; print prints what is shown.
func TestLiqo0xManualProviderHandsPeerInfoOver(t *testing.T) {
	f := liqo0xProvider(newFake(), "")
	f.liqo0x.authDisabled = true
	h := newHarness(t, f, providerOnly())
	h.key("enter")
	ho := screenIs[*handoffScreen](t, h)
	if !f.called("PeerInfo provider") || f.called("Peers") || f.called("CreateNonce") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSee("Send this peer info to the consumer's admin", "provider provider-1 (provider-one), Liqo v0.10.3",
		"auth URL: "+fakeAuthURL, "token:    "+fakeTokenMasked, "or with liqoctl:", "--auth-token "+fakeTokenMasked, "r reveal token")
	v := h.flat()
	if w, box := strings.Index(v, fakeDisabledWarning), strings.Index(v, "provider provider-1 (provider-one)"); w < 0 || w > box {
		t.Fatalf("the warning is not above the peer info:\n%s", v)
	}
	h.mustNotSee(fakeToken[:16], fakePeerInfoData[len(handshake.PeerInfoPrefix):][:16])
	if p := ho.printed(); strings.Contains(p, fakeToken[:16]) || !strings.Contains(p, fakeTokenMasked) {
		t.Fatalf("print of the masked screen:\n%s", p)
	}

	h.key("c")
	if len(h.copied) != 1 || h.copied[0] != fakePeerInfoData+"\n" {
		t.Fatalf("copied %q, want the whole peer info", h.copied)
	}
	h.mustSee("Copied to the clipboard.")
	h.mustNotSee(fakeToken[:16])

	path := filepath.Join(t.TempDir(), "peer-info.txt")
	h.key("s")
	ho.path.SetValue(path)
	h.key("enter")
	mustBeSaved(t, path, fakePeerInfoData+"\n")

	h.key("r")
	h.mustSee(handshake.PeerInfoPrefix, fakeToken[:64], "r hide token", "Token shown")
	if p := ho.printed(); !strings.Contains(p, fakePeerInfoData) {
		t.Fatalf("print of the revealed screen lacks the peer info:\n%s", p)
	}
	h.key("r")
	h.mustNotSee(fakeToken[:16])
	h.mustSee(fakeTokenMasked)

	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSeeFlat("Liqo 0.x peer info handed over", fakeDisabledWarning, "Provider: provider-1", "Auth URL: "+fakeAuthURL)
	h.mustNotSee(fakeToken[:16])
}

// 4. Manual consumer: the nonce's receive screen takes a peer info, checks
// it (no write), shows it masked with the warning, asks the same
// confirmation, then ApplyPeerInfo with the data; esc keeps the paste.
func TestLiqo0xManualConsumerPastesPeerInfo(t *testing.T) {
	f := newFake()
	f.liqo0x.authDisabled = true
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	r := screenIs[*receiveScreen](t, h)
	h.mustSee("Receive the nonce (or a Liqo 0.x peer info) from the provider's admin")
	h.send(tea.PasteMsg{Content: fakePeerInfoData[:len(fakePeerInfoData)-3] + "fff"})
	h.mustSee("truncated or edited")
	h.key("ctrl+l")
	h.send(tea.PasteMsg{Content: fakePeerInfoData + "\n"})
	if !f.called("CheckPeerInfo consumer") || f.called("ApplyPeerInfo") || f.called("GenerateTenant") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSeeFlat("a valid Liqo 0.x peer info from provider provider-1", "auth URL: "+fakeAuthURL, "token: "+fakeTokenMasked,
		fakeDisabledWarning, "hidden: it carries the provider's token")
	h.mustNotSee(fakeToken[:16], fakePeerInfoData[len(handshake.PeerInfoPrefix):][:16])
	if !r.keys.Apply.Enabled() {
		t.Fatal("a valid peer info cannot be used")
	}
	h.key("ctrl+s")
	screenIs[*liqo0xConfirmScreen](t, h)
	h.mustSeeFlat(fakeDisabledWarning, "Provider: provider-1", "The provider issues ONE identity per cluster ID")
	h.key("esc")
	r = screenIs[*receiveScreen](t, h)
	if !r.peerInfo() {
		t.Fatalf("the paste was lost going back:\n%s", h.view())
	}
	if f.called("ApplyPeerInfo") {
		t.Fatal("applied before confirmation")
	}
	h.key("ctrl+s", "enter")
	screenIs[*summaryScreen](t, h)
	if !f.called("ApplyPeerInfo consumer peer=false reissue=false data=true") {
		t.Fatalf("calls %v", f.calls)
	}
	wantOpts(t, f, Liqo0xOptions{})
	h.mustSeeFlat("Authenticated with the Liqo 0.x provider", "authentication is DISABLED on this Liqo 0.x provider",
		"must reach the provider's auth server")
}

// A peer info of another provider than the one named is refused.
func TestLiqo0xReceiveRefusesAnotherProvider(t *testing.T) {
	o := consumerOnly()
	o.PeerID = "provider-9"
	h := newHarness(t, newFake(), o)
	h.key("enter", "enter")
	r := screenIs[*receiveScreen](t, h)
	h.send(tea.PasteMsg{Content: fakePeerInfoData})
	h.mustSeeFlat("this peer info is from provider provider-1, but this handshake is with provider-9")
	h.key("ctrl+s")
	if r.peerInfo() {
		t.Fatal("the wrong provider's peer info is usable")
	}
	screenIs[*receiveScreen](t, h)
}

// 6. Already issued, automated: d asks first, naming what is deleted on
// the provider; only y runs again with Reissue; n cancels.
func TestLiqo0xAlreadyIssuedReissueAfterConfirmation(t *testing.T) {
	f := liqo0xProvider(newFake(), "none")
	f.liqo0x.errs = map[string][]error{"AuthenticateLiqo0x": {&Failure{
		Reason:        "provider provider-1 already issued the one identity of cluster consumer-1 (403)",
		Hint:          "on provider provider-1, delete Secret liqo-remote-certificate in namespace liqo-tenant-consumer-1-4f1c9a, then retry",
		AlreadyIssued: true,
	}}}
	h := newHarness(t, f, both())
	h.key("enter", "enter")
	e := screenIs[*errorScreen](t, h)
	h.mustSeeFlat("already issued the one identity", "d deletes, on provider provider-1, the certificate it stored for consumer consumer-1",
		"d delete the provider's identity, retry")
	wantOpts(t, f, Liqo0xOptions{})
	h.key("d")
	if !e.confirmReissue {
		t.Fatal("d did not ask")
	}
	h.mustSeeFlat("Delete the provider's identity for this consumer and retry?", "On provider provider-1",
		"consumer consumer-1 (Secret liqo-remote-certificate in the tenant namespace of consumer-1)", "y delete and retry")
	h.key("r", "enter") // neither retries while asking
	h.key("n")
	if e.confirmReissue {
		t.Fatal("n did not cancel")
	}
	wantOpts(t, f, Liqo0xOptions{})
	h.key("d", "y")
	screenIs[*summaryScreen](t, h)
	if !f.called("AuthenticateLiqo0x consumer provider peer=false reissue=true") {
		t.Fatalf("calls %v", f.calls)
	}
	wantOpts(t, f, Liqo0xOptions{}, Liqo0xOptions{Reissue: true})
}

// 6. Already issued, manual: no reissue (the provider is out of reach):
// the Hint names the object the provider's admin deletes.
func TestLiqo0xManualAlreadyIssuedShowsHint(t *testing.T) {
	f := newFake()
	f.liqo0x.errs = map[string][]error{"ApplyPeerInfo": {&Failure{
		Reason:        "provider provider-1 refused: it already issued an identity to cluster consumer-1",
		Hint:          "on provider provider-1, the admin deletes Secret liqo-remote-certificate in namespace liqo-tenant-consumer-1-4f1c9a, then retry",
		AlreadyIssued: true,
	}}}
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	h.send(tea.PasteMsg{Content: fakePeerInfoData})
	h.key("ctrl+s", "enter")
	e := screenIs[*errorScreen](t, h)
	h.mustSeeFlat("the admin deletes Secret liqo-remote-certificate in namespace liqo-tenant-consumer-1-4f1c9a")
	if e.Keys().(errorKeys).Reissue.Enabled() {
		t.Fatal("reissue offered without the provider's kubeconfig")
	}
	h.key("d")
	if e.confirmReissue {
		t.Fatal("d asks in manual mode")
	}
	h.mustNotSee("d deletes")
	h.key("r")
	screenIs[*summaryScreen](t, h)
	wantOpts(t, f, Liqo0xOptions{}, Liqo0xOptions{})
}

// 6. Wrong token and unreachable show Reason and Hint; no reissue.
func TestLiqo0xRefusalsShowReasonAndHint(t *testing.T) {
	for _, fail := range []*Failure{
		{Reason: "provider provider-1 refused the token (401): it is not its current auth-token", Hint: "ask the provider's admin for the peer info again"},
		{Reason: "the auth server " + fakeAuthURL + " did not answer: connection refused", Hint: "check that liqo-auth runs and its Service is reachable from here"},
	} {
		t.Run(fail.Reason[:20], func(t *testing.T) {
			f := liqo0xProvider(newFake(), "none")
			f.liqo0x.errs = map[string][]error{"AuthenticateLiqo0x": {fail}}
			h := newHarness(t, f, both())
			h.key("enter", "enter")
			e := screenIs[*errorScreen](t, h)
			h.mustSeeFlat(fail.Reason, fail.Hint, "r retry")
			if e.Keys().(errorKeys).Reissue.Enabled() {
				t.Fatal("reissue offered for " + fail.Reason)
			}
			h.key("r")
			screenIs[*summaryScreen](t, h)
			wantOpts(t, f, Liqo0xOptions{}, Liqo0xOptions{})
		})
	}
}

// The 0.x screens fit the usual terminal sizes.
func TestLiqo0xScreensFit(t *testing.T) {
	f := liqo0xProvider(newFake(), "")
	f.liqo0x.authDisabled = true
	h := newHarness(t, f, providerOnly())
	h.key("enter")
	screenIs[*handoffScreen](t, h)
	for _, size := range [][2]int{{80, 24}, {60, 16}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		if n := len(strings.Split(h.m.render(), "\n")); n > size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], n)
		}
		h.mustNotSee(fakeToken[:16])
	}
}

// 4. A manual consumer running Liqo 0.x does not read a v1 handshake
// state: it waits for the peer info at once.
func TestLiqo0xManualLiqoConsumerSkipsStage(t *testing.T) {
	f := liqo0xProvider(newFake(), "0.x")
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	screenIs[*receiveScreen](t, h)
	if f.called("Stage") {
		t.Fatalf("v1 stage read on a Liqo 0.x consumer: %v", f.calls)
	}
	h.send(tea.PasteMsg{Content: fakePeerInfoData})
	h.key("ctrl+s")
	screenIs[*liqo0xConfirmScreen](t, h)
	h.mustSeeFlat("[ ] also enable outgoing peering")
	h.key("p", "enter")
	screenIs[*summaryScreen](t, h)
	if !f.called("ApplyPeerInfo consumer peer=true reissue=false data=true") {
		t.Fatalf("calls %v", f.calls)
	}
}

package tui

import (
	"errors"
	"slices"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func fakeAdvertisement() *Advertisement {
	return &Advertisement{APIServer: "https://provider.example:6443", CAFingerprint: fpCA, Source: "kubeconfig", Engine: "in-process controller"}
}

// indexOf is the position of the first call named name (-1: none).
func (f *fakeBackend) indexOf(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.IndexFunc(f.calls, func(c string) bool { return c == name || len(c) > len(name) && c[:len(name)+1] == name+" " })
}

// resumeAtIdentity brings a manual provider resuming at consumer-1's
// Identity to the advertise screen.
func resumeAtIdentity(t *testing.T, f *fakeBackend) (*harness, *advertiseScreen) {
	t.Helper()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	o := providerOnly()
	o.PeerID = "consumer-1"
	h := newHarness(t, f, o)
	h.key("enter", "enter")
	return h, screenIs[*advertiseScreen](t, h)
}

// A provider resuming at the Identity first sees what the consumer will be
// told, edits the address, and only then generates the Identity.
func TestAdvertiseScreenBeforeIdentity(t *testing.T) {
	f := newFake()
	f.advertisement = fakeAdvertisement()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	o := providerOnly()
	o.PeerID = "consumer-1"
	h := newHarness(t, f, o)
	h.key("enter") // detect → peer
	h.key("enter") // peer → resume: generate the Identity
	a := screenIs[*advertiseScreen](t, h)
	h.mustSee("The consumer will reach this provider at https://provider.example:6443 (CA", fpCA,
		"the server of this provider's kubeconfig", "e edit address and CA")
	if f.called("GenerateIdentity") {
		t.Fatal("Identity generated before the admin saw the address")
	}
	if !f.called("Advertised provider consumer-1") {
		t.Fatalf("calls %v", f.calls)
	}

	h.key("e")
	if !a.Typing() {
		t.Fatal("e did not open the fields")
	}
	h.typeText("api.example:443")
	h.key("esc") // cancel: nothing sent
	if a.editing || f.called("SetAdvertised") {
		t.Fatal("esc did not cancel the edit")
	}
	h.key("e")
	h.typeText("api.example:443")
	h.key("tab")
	h.typeText("trusted")
	h.key("enter")
	if len(f.edits) != 1 || f.edits[0] != (AdvertiseEdit{APIServer: "api.example:443", TrustedCA: true}) {
		t.Fatalf("edits %+v", f.edits)
	}
	h.mustSee("The consumer will reach this provider at api.example:443 (publicly trusted CA)", "set for this consumer")

	h.key("enter")
	screenIs[*handoffScreen](t, h)
	if f.indexOf("SetAdvertised") > f.indexOf("GenerateIdentity") {
		t.Fatalf("the edit came after the Identity: %v", f.calls)
	}
	if h.m.s.advertise.confirmedFor != advertiseKey(ClusterRef{Context: "provider"}, "consumer-1") {
		t.Fatalf("not remembered as confirmed: %q", h.m.s.advertise.confirmedFor)
	}
}

// Real Liqo decides what it advertises: no edit, and the screen says how
// to change it on Liqo.
func TestAdvertiseScreenFixedOnLiqo(t *testing.T) {
	f := newFake()
	adv := fakeAdvertisement()
	adv.Engine, adv.Source, adv.Fixed = "Liqo's controller-manager", "node", true
	adv.FixedHint = "change it on Liqo (`liqoctl install ... --set apiServer.address=<host:port>`)"
	f.advertisement = adv
	h, a := resumeAtIdentity(t, f)
	h.mustSee("a control-plane node's address", "--set apiServer.address=")
	h.key("e")
	if a.editing || a.keys.Edit.Enabled() {
		t.Fatal("edit offered on Liqo")
	}
	h.key("enter")
	screenIs[*handoffScreen](t, h)
}

// A refused edit says why in one line and keeps the fields.
func TestAdvertiseScreenRefusedEdit(t *testing.T) {
	f := newFake()
	f.advertisement = fakeAdvertisement()
	f.failOp["SetAdvertised"] = errors.New("API server address \"http://x\": only https is served; give host[:port] or https://host[:port]")
	h, a := resumeAtIdentity(t, f)
	h.key("e")
	h.typeText("http://x")
	h.key("enter")
	h.mustSee("only https is served")
	if !a.editing || a.address.Value() != "http://x" {
		t.Fatal("the fields were lost")
	}
	h.mustSee("https://provider.example:6443") // still the old address
}

// The automated run shows the provider's advertisement first, once.
func TestAdvertiseScreenBeforeAutomatedRun(t *testing.T) {
	f := newFake()
	f.advertisement = fakeAdvertisement()
	h := newHarness(t, f, both())
	h.key("enter") // detect → run
	screenIs[*advertiseScreen](t, h)
	if f.called("Authenticate") || !f.called("Advertised provider consumer-1") {
		t.Fatalf("calls %v", f.calls)
	}
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	if !f.called("Authenticate") {
		t.Fatalf("calls %v", f.calls)
	}
}

// The same screen in accessible mode: summary, edit through two prompts,
// then continue.
func TestAccessibleAdvertiseEdit(t *testing.T) {
	f := newFake()
	f.advertisement = fakeAdvertisement()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	o := providerOnly()
	o.PeerID = "consumer-1"
	out, err := runLines(t, f, o, lines(
		"",                // detect: continue
		"",                // peer: consumer-1 (given)
		"e",               // advertise: edit
		"api.example:443", // address
		"",                // CA: default
		"",                // advertise: continue
		"",                // hand-off: no file
		"",                // summary: finish
	))
	t.Logf("err %v", err)
	mustPrint(t, out,
		"The consumer will reach this provider at https://provider.example:6443 (CA "+fpCA+")",
		"  e      edit address and CA\n",
		"The consumer will reach this provider at api.example:443 (CA "+fpCA+")",
	)
	if len(f.edits) != 1 || f.edits[0].APIServer != "api.example:443" {
		t.Fatalf("edits %+v", f.edits)
	}
	if !f.called("GenerateIdentity") {
		t.Fatalf("calls %v", f.calls)
	}
}

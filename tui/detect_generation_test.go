package tui

import (
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

const refusedLine = "consumer consumer-1 runs Liqo v1, provider provider-1 runs Liqo 0.x (v0.10.3): they authenticate differently; upgrade provider-1 to Liqo v1"

// A pair that cannot authenticate is refused at detection with the
// backend's one line: enter does nothing, the handshake state is never read.
// The verdict follows the roles: swapped, this fake pair is allowed.
func TestDetectRefusesAPairThatCannotAuthenticate(t *testing.T) {
	f := newFake()
	f.infos["consumer"].LiqoFlavor = "v1"
	f.infos["provider"].LiqoFlavor, f.infos["provider"].LiqoVersion, f.infos["provider"].LiqoLine = "0.x", "v0.10.3", "v0.4+"
	// Liqo 0.x has no authentication keys: the screen must not ask for init's.
	f.infos["provider"].KeyAlgorithm, f.infos["provider"].KeyFingerprint = "", ""
	f.pairProblems = map[string]string{"consumer-1/provider-1": refusedLine}
	h := newHarness(t, f, both())
	d := screenIs[*detectScreen](t, h)
	if h.m.s.mode != ModeAutomated || d.canContinue() != refusedLine {
		t.Fatalf("mode %v, can continue: %q", h.m.s.mode, d.canContinue())
	}
	if d.Keys().(detectKeys).Continue.Enabled() {
		t.Fatal("continue offered to a pair that cannot authenticate")
	}
	h.mustSee("generation v1", "Liqo 0.x (v0.10.3)", "Liqo 0.x: its liqo-auth server authenticates with a shared token")
	if v := oneLine(h.view()); !strings.Contains(v, refusedLine) {
		t.Fatalf("screen lacks the refusal:\n%s", h.view())
	}
	if _, remote, _ := strings.Cut(h.view(), "Remote  provider"); strings.Contains(remote, "no authentication keys") || strings.Contains(remote, "I installs one") {
		t.Fatalf("asks a 0.x cluster for keys or a controller:\n%s", remote)
	}
	if len(d.unready()) != 0 || len(d.uncontrolled()) != 1 || d.uncontrolled()[0] != handshake.Local {
		t.Fatalf("unready %v, uncontrolled %v: init or install offered to the 0.x cluster", d.unready(), d.uncontrolled())
	}
	h.key("enter")
	screenIs[*detectScreen](t, h)
	if f.called("Stage") {
		t.Fatal("a refused pair went on to the handshake")
	}

	h.key("s")
	if h.m.s.localRole != handshake.RoleProvider || d.canContinue() != "" {
		t.Fatalf("role %v, can continue: %q", h.m.s.localRole, d.canContinue())
	}
}

// Each cluster's generation is on the detect screen; a 0.x provider with a
// consumer without Liqo is allowed; a backend that tells no generation adds
// no line (the other screens' goldens).
func TestDetectShowsEachClustersGeneration(t *testing.T) {
	f := newFake()
	f.infos["consumer"].LiqoFlavor = "none"
	p := f.infos["provider"]
	p.LiqoFlavor, p.User, p.KeyAlgorithm, p.KeyFingerprint, p.Restricted = "0.x", peeringUserName, "", "", true
	h := newHarness(t, f, both())
	d := screenIs[*detectScreen](t, h)
	if d.canContinue() != "" {
		t.Fatalf("can continue: %q", d.canContinue())
	}
	h.mustSee("generation none", "Liqo 0.x (fake version)")
}

// A 0.x provider whose auth server accepts any token is said so loudly on
// the detect screen, before anything else happens.
func TestDetectWarnsAuthenticationDisabled(t *testing.T) {
	f := newFake()
	f.infos["consumer"].LiqoFlavor = "none"
	p := f.infos["provider"]
	p.LiqoFlavor, p.LiqoVersion, p.LiqoLine, p.Liqo0xAuthDisabled = "0.x", "v0.10.3", "v0.4+", true
	h := newHarness(t, f, both())
	screenIs[*detectScreen](t, h)
	h.mustSee("authentication is DISABLED on this Liqo 0.x provider")
}

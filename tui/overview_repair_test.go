package tui

import (
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// resumePlan is the plan of doctor's resume of a stopped handshake.
var resumePlan = []string{"resume the handshake of consumer consumer-9 with provider provider-1 from where it stopped (as `liqo-auth-tui authenticate`)"}

// brokenChecks are a diagnosis with a fix doctor makes itself, after the
// one it cannot.
func brokenChecks() []DoctorCheck {
	return []DoctorCheck{
		{OK: true, Title: "cluster ID and keys", Detail: "provider-1, ed25519"},
		{Title: "Tenant condition", Cause: "cordoned by this cluster's admin", Fix: "liqo-auth-tui uncordon tenant consumer-9"},
		{Title: "handshake finished", Cause: "nonce created, no Tenant from consumer consumer-9",
			Fix: "liqo-auth-tui authenticate", Plan: resumePlan, Key: "handshake-complete/consumer-9/local"},
	}
}

// A diagnosis shows the fix doctor makes itself under its check, with its
// plan; f asks with the plan (no: nothing written), yes applies that check
// through the backend and shows doctor's checks after it, where f has
// nothing left to fix.
func TestOverviewAppliesDoctorsFix(t *testing.T) {
	f := newFake()
	f.overview.checks = brokenChecks()
	f.overview.repaired = []DoctorCheck{{OK: true, Title: "handshake finished", Detail: "Tenant accepted"}}
	h := overviewOf(t, f, providerPeerings())
	h.key("down", "enter")
	if h.m.cur.(*overviewScreen).Keys().(overviewKeys).Fix.Enabled() {
		t.Fatalf("f offered before any diagnosis:\n%s", h.view())
	}
	h.key("d")
	h.mustSee("✗ handshake finished: nonce created, no Tenant", "f applies doctor's own fix:", "• resume the handshake of consumer consumer-9",
		"fix: liqo-auth-tui uncordon tenant consumer-9")
	if strings.Count(h.view(), "doctor's own fix") != 1 {
		t.Fatalf("a fix shown for a check doctor cannot fix itself:\n%s", h.view())
	}

	h.key("f")
	h.mustSee("Fix “handshake finished”? doctor makes these writes, as doctor --fix does:", "• resume the handshake of consumer consumer-9", "y confirm")
	h.key("n")
	if f.called("ApplyRepair") {
		t.Fatalf("fixed without a yes: %v", f.calls)
	}
	h.key("f", "y")
	if !f.called("ApplyRepair provider - consumer-9 handshake-complete/consumer-9/local") {
		t.Fatalf("calls %v", f.calls)
	}
	if r := f.overview.repairs; len(r) != 1 || strings.Join(r[0].Plan, "") != strings.Join(resumePlan, "") {
		t.Fatalf("repairs %+v", r)
	}
	h.mustSee("diagnosis of the peering with consumer-9 after the fix", "fixed: handshake finished", "✓ handshake finished (Tenant accepted)")
	if h.m.cur.(*overviewScreen).Keys().(overviewKeys).Fix.Enabled() {
		t.Fatalf("f still offered with nothing to fix:\n%s", h.view())
	}

	// The diagnosis is of its peering: another row offers no fix.
	f.overview.checks = brokenChecks()
	h.key("esc", "enter", "d", "esc", "up", "enter")
	if h.m.cur.(*overviewScreen).Keys().(overviewKeys).Fix.Enabled() {
		t.Fatalf("consumer-9's fix offered on consumer-7:\n%s", h.view())
	}
}

// A fix that fails says why, and the diagnosis it came from stays: f can
// try again.
func TestOverviewFixFailure(t *testing.T) {
	f := newFake()
	f.overview.checks = brokenChecks()
	f.failOp["ApplyRepair"] = &Failure{Reason: "handshake finished: doctor's fix changed since it was shown: diagnose again before fixing"}
	h := overviewOf(t, f, providerPeerings())
	h.key("down", "enter", "d", "f", "y")
	h.mustSee("✗ handshake finished: doctor's fix changed since it was shown")
	if !h.m.cur.(*overviewScreen).Keys().(overviewKeys).Fix.Enabled() {
		t.Fatalf("f not offered again after a failed fix:\n%s", h.view())
	}
}

// Line mode: the diagnosis prints the fix's plan, the menu offers f, the
// plan is asked again, and yes applies it.
func TestAccessibleOverviewFix(t *testing.T) {
	f := newFake()
	f.overview.lists = [][]OverviewRow{providerPeerings()}
	f.overview.checks = brokenChecks()
	f.overview.repaired = []DoctorCheck{{OK: true, Title: "handshake finished", Detail: "Tenant accepted"}}
	out, _ := runLines(t, f, providerOnly(), lines(
		"",  // detect: enter shows the overview
		"2", // consumer-9
		"d", // diagnose
		"f", // fix…
		"y", // …confirmed
		"esc",
		"q", "y",
	))
	mustPrint(t, out, "f applies doctor's own fix:", "Fix “handshake finished”?", "• resume the handshake of consumer consumer-9",
		"fixed: handshake finished", "✓ handshake finished (Tenant accepted)")
	if !f.called("ApplyRepair provider - consumer-9 handshake-complete/consumer-9/local") {
		t.Fatalf("calls %v", f.calls)
	}
}

// unauthenticatedRow is a pair read on both sides after unauthenticate,
// as flows says it: its next step is authenticate, from here.
func unauthenticatedRow() OverviewRow {
	return OverviewRow{RemoteID: "provider-1", Role: handshake.RoleConsumer, Generation: "v1",
		Stage: handshake.StageUnauthenticated, Remote: &handshake.Peering{Generation: "v1", Stage: handshake.StageUnauthenticated},
		Health: handshake.Health{Verdict: handshake.VerdictUnauthenticated, Reason: "the tenant namespaces stay, as Liqo keeps them; both clusters are at hand: authenticate peers them again from here"}}
}

// With both clusters, Enter on a pair that was unauthenticated offers to
// authenticate it from here (flows' action), with the reason that says
// so; yes runs the automated handshake on the row's pair and verifies it.
// Such a pair needs no attention.
func TestOverviewAuthenticatesAPairAgain(t *testing.T) {
	f := newFake()
	f.overview.lists = [][]OverviewRow{{unauthenticatedRow()}}
	h := newHarness(t, f, both())
	h.send(wideWindow)
	h.key("enter")
	screenIs[*overviewScreen](t, h)
	h.mustSeeFlat("1 peering(s), 0 need(s) attention", "unauthenticated", "authenticate peers them again from here")
	h.key("enter")
	h.mustSeeFlat("A authenticate: this wizard runs the handshake on both clusters", "unauthenticated: the tenant namespaces stay")
	h.key("A")
	h.mustSee("Authenticate consumer consumer-1 with provider provider-1?")
	h.key("n")
	if f.called("Authenticate") {
		t.Fatalf("authenticated without a yes: %v", f.calls)
	}
	h.key("A", "y")
	pastAdvertise(h)
	if !f.called("Authenticate consumer provider") {
		t.Fatalf("calls %v\n%s", f.calls, h.view())
	}
}

// The provider's row of the same pair, listed on the provider with the
// consumer read too: the wizard authenticates with the provider as the
// provider. Without the action (one cluster read, or a complete pair), no
// A.
func TestOverviewAuthenticateFollowsTheRow(t *testing.T) {
	f := newFake()
	row := unauthenticatedRow()
	row.RemoteID, row.Role = "consumer-1", handshake.RoleProvider
	f.overview.lists = [][]OverviewRow{{row}}
	o := Options{Local: ClusterRef{Context: "provider"}, Remote: ClusterRef{Context: "consumer"}, Role: handshake.RoleProvider}
	h := newHarness(t, f, o)
	h.send(wideWindow)
	h.key("enter")
	screenIs[*overviewScreen](t, h)
	h.key("enter", "A", "y")
	pastAdvertise(h)
	if !f.called("Authenticate consumer provider") {
		t.Fatalf("calls %v\n%s", f.calls, h.view())
	}

	f = newFake()
	row.Remote = nil // one cluster read: flows gives no authenticate
	f.overview.lists = [][]OverviewRow{{row}}
	h = newHarness(t, f, o)
	h.send(wideWindow)
	h.key("enter", "enter")
	if h.m.cur.(*overviewScreen).Keys().(overviewKeys).Authenticate.Enabled() {
		t.Fatalf("A offered on a row flows gave no authenticate:\n%s", h.view())
	}
}

// Line mode: the menu offers authenticate; yes leaves the overview for the
// run.
func TestAccessibleOverviewAuthenticate(t *testing.T) {
	f := newFake()
	f.overview.lists = [][]OverviewRow{{unauthenticatedRow()}}
	out, _ := runLines(t, f, both(), lines(
		"",  // detect: enter shows the overview
		"1", // provider-1
		"A", // authenticate…
		"y", // …confirmed
		"", "", "", "",
	))
	mustPrint(t, out, "authenticate: this wizard runs the handshake on both clusters", "Authenticate consumer consumer-1 with provider provider-1?")
	if !f.called("Authenticate consumer provider") {
		t.Fatalf("calls %v", f.calls)
	}
}

func TestGoldenOverviewRepair(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := newFake()
		f.overview.checks = brokenChecks()
		h := overviewOf(t, f, providerPeerings())
		h.key("down", "enter", "d")
		return h.m
	})
}

func TestGoldenOverviewUnauthenticated(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := newFake()
		f.overview.lists = [][]OverviewRow{{unauthenticatedRow()}}
		h := newHarness(t, f, both())
		h.send(wideWindow)
		h.key("enter", "enter")
		return h.m
	})
}

// pastAdvertise confirms the advertise screen that comes before an
// operation that gives an Identity.
func pastAdvertise(h *harness) {
	h.t.Helper()
	for range 5 {
		if _, ok := h.m.cur.(*advertiseScreen); !ok {
			return
		}
		h.key("enter")
	}
}

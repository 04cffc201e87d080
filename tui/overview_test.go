package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// providerPeerings are a provider's peerings as the overview lists them:
// one fine, one cordoned, and a peering where it is the consumer.
func providerPeerings() []OverviewRow {
	return []OverviewRow{
		{RemoteID: "consumer-7", Role: handshake.RoleProvider, Generation: "v1", MadeBy: "liqo-auth-tui", Stage: handshake.StageGenerateIdentity,
			TenantCondition: "Active", CertificateNotAfter: fakeExpiry, Health: handshake.Health{Verdict: handshake.VerdictOK}},
		{RemoteID: "consumer-9", Role: handshake.RoleProvider, Generation: "v1", MadeBy: "liqo-auth-tui", Stage: handshake.StageGenerateIdentity,
			TenantCondition: "Cordoned", CertificateNotAfter: fakeExpiry, Health: handshake.Health{Verdict: handshake.VerdictCordoned, Reason: "the provider cordoned the Tenant: no new resources"}},
		{RemoteID: "provider-5", Role: handshake.RoleConsumer, Generation: "v1", MadeBy: "liqo-auth-tui", Stage: handshake.StageAuthenticated,
			CertificateNotAfter: fixedNow.Add(-24 * time.Hour), Slices: []SliceInfo{{Name: "gpu"}, {Name: "batch"}}, Health: handshake.Health{Verdict: handshake.VerdictExpired, Reason: "the certificate expired on 2025-12-31"}},
	}
}

var wideWindow = tea.WindowSizeMsg{Width: 160, Height: 30}

// overviewOf is the wizard on a provider with lists as the overviews the
// watch sends, past detection, in a window wide enough for the reasons.
func overviewOf(t *testing.T, f *fakeBackend, lists ...[]OverviewRow) *harness {
	t.Helper()
	f.overview.lists = lists
	h := newHarness(t, f, providerOnly())
	h.send(wideWindow)
	h.mustSee(fmt.Sprintf("%d peering(s) already on this cluster", len(lists[0])))
	h.key("enter")
	screenIs[*overviewScreen](t, h)
	return h
}

// With peerings, the first screen after detection is their overview, read
// from the watch; the new peering (n) goes on to the handshake as without
// them, and detection does not list them again.
func TestOverviewFirstAfterDetection(t *testing.T) {
	f := newFake()
	h := overviewOf(t, f, providerPeerings())
	h.mustSee("Peerings of cluster provider-1", "3 peering(s), 2 need(s) attention · kept up to date from watches",
		"consumer-7", "consumer-9", "Cordoned", "cordoned", "provider-5", "expired", "the certificate expired")
	if !f.called("Overview provider -") || !f.called("WatchOverview provider -") {
		t.Fatalf("calls %v", f.calls)
	}
	h.key("n")
	screenIs[*peerScreen](t, h)
	if n := strings.Count(strings.Join(f.calls, "\n"), "Overview provider"); n != 2 {
		t.Fatalf("the peerings were listed again after the overview: %v", f.calls)
	}
}

// An admin who named the peer (--remote-cluster-id) asks for a handshake
// with it: peerings with other clusters do not stand in the way; one with
// that peer shows first.
func TestNamedNewPeerSkipsTheOverview(t *testing.T) {
	f := newFake()
	f.overview.lists = [][]OverviewRow{providerPeerings()}
	o := providerOnly()
	o.PeerID = "consumer-new"
	h := newHarness(t, f, o)
	h.send(wideWindow)
	if strings.Contains(h.view(), "already on this cluster") {
		t.Fatalf("the detect screen offers the overview for a new named peer:\n%s", h.view())
	}
	h.key("enter")
	if _, ok := h.m.cur.(*overviewScreen); ok {
		t.Fatalf("the overview came before the handshake with the named new peer")
	}

	f = newFake()
	f.overview.lists = [][]OverviewRow{providerPeerings()}
	o.PeerID = "consumer-9"
	h = newHarness(t, f, o)
	h.send(wideWindow)
	h.mustSee("3 peering(s) already on this cluster")
	h.key("enter")
	screenIs[*overviewScreen](t, h)
}

// Without peerings the wizard goes on as it always did.
func TestNoPeeringsNoOverview(t *testing.T) {
	f := newFake()
	h := newHarness(t, f, providerOnly())
	h.key("enter")
	screenIs[*peerScreen](t, h)
	if !f.called("Overview provider -") || f.called("WatchOverview") {
		t.Fatalf("calls %v", f.calls)
	}
}

// The cursor moves by row, page, to the ends; the window follows it and
// only its rows are drawn.
func TestOverviewNavigation(t *testing.T) {
	var rows []OverviewRow
	for i := range 40 {
		rows = append(rows, OverviewRow{RemoteID: fmt.Sprintf("consumer-%02d", i), Role: handshake.RoleProvider, Generation: "v1",
			TenantCondition: "Active", Health: handshake.Health{Verdict: handshake.VerdictOK}})
	}
	h := overviewOf(t, newFake(), rows)
	o := h.m.cur.(*overviewScreen)
	h.mustSee("consumer-00", "rows 1–")
	if strings.Contains(h.view(), "consumer-39") {
		t.Fatalf("a row outside the window was drawn:\n%s", h.view())
	}
	h.key("down", "j")
	if o.cursor != 2 {
		t.Fatalf("cursor %d after two downs", o.cursor)
	}
	h.key("G")
	h.mustSee("consumer-39", "of 40")
	if o.cursor != 39 || strings.Contains(h.view(), "consumer-00") {
		t.Fatalf("cursor %d at the end:\n%s", o.cursor, h.view())
	}
	h.key("down")
	if o.cursor != 39 {
		t.Fatalf("cursor %d past the end", o.cursor)
	}
	h.key("g", "pgdown")
	if o.cursor != o.win-1 || o.offset != 0 {
		t.Fatalf("a page down: cursor %d offset %d window %d", o.cursor, o.offset, o.win)
	}
	h.key("up", "k")
	if o.cursor != o.win-3 {
		t.Fatalf("cursor %d after two ups", o.cursor)
	}
}

// Each overview the watch sends replaces the rows (the screen subscribes
// again after each), the cursor staying on its peering.
func TestOverviewRefreshesFromTheWatch(t *testing.T) {
	f := newFake()
	before := providerPeerings()
	f.overview.lists = [][]OverviewRow{before}
	h := newHarness(t, f, providerOnly())
	h.send(wideWindow)
	h.key("enter", "down") // on consumer-9
	o := screenIs[*overviewScreen](t, h)
	h.mustSee("› consumer-9")

	// The watch sends a change: consumer-9 uncordoned, a new consumer
	// listed first.
	after := providerPeerings()
	after[1].TenantCondition, after[1].Health = "Active", handshake.Health{Verdict: handshake.VerdictOK}
	after = append([]OverviewRow{{RemoteID: "consumer-1", Role: handshake.RoleProvider, Generation: "v1", Health: handshake.Health{Verdict: handshake.VerdictPending, Reason: "waiting for the Tenant's status"}}}, after...)
	last := append([]OverviewRow(nil), after...)
	ch := make(chan []OverviewRow, 1)
	ch <- last
	close(ch)
	h.send(overviewMsg{gen: o.gen, rows: after, ch: ch})
	h.mustSee("4 peering(s), 2 need(s) attention", "consumer-1", "waiting for the Tenant's status", "› consumer-9")
	if o.cursor != 2 || o.rows[2].Condition() != "Active" {
		t.Fatalf("cursor %d on %+v", o.cursor, o.rows[o.cursor])
	}
	// A message of a watch that ended changes nothing.
	h.send(overviewMsg{gen: o.gen - 1, rows: nil})
	h.mustSee("4 peering(s)")
}

// The watch's own overviews, through the fake: every one is shown in
// turn, the last stays.
func TestOverviewSubscribesAgainAfterEachUpdate(t *testing.T) {
	second := providerPeerings()[:2]
	third := providerPeerings()[:1]
	h := overviewOf(t, newFake(), providerPeerings(), second, third)
	h.mustSee("1 peering(s), 0 need(s) attention")
}

// Enter opens the row's actions: those that apply to it, here a provider's
// Active Tenant; diagnose shows doctor's checks, failed first with cause
// and fix; esc goes back.
func TestOverviewActionMenuAndDiagnose(t *testing.T) {
	f := newFake()
	f.overview.checks = []DoctorCheck{
		{OK: true, Title: "cluster ID and keys", Detail: "provider-1, ed25519"},
		{Title: "Tenant consumer-7", Cause: "the consumer's key changed since its Tenant was signed",
			Fix: "liqo-auth-tui unauthenticate --remote-cluster-id consumer-7"},
	}
	h := overviewOf(t, f, providerPeerings())
	h.key("enter")
	h.mustSee("Peering with consumer-7 (this cluster: provider, v1)", "diagnose", "cordon the Tenant", "drain the Tenant", "unauthenticate the pair")
	for _, absent := range []string{"uncordon the Tenant", "verify the consumer", "delete a ResourceSlice", "activate"} {
		if strings.Contains(h.view(), absent) {
			t.Fatalf("the menu offers %q:\n%s", absent, h.view())
		}
	}
	h.key("d")
	if !f.called("Diagnose provider - consumer-7") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSee("diagnosis of the peering with consumer-7", "✗ Tenant consumer-7: the consumer's key changed since its Tenant was signed",
		"fix: liqo-auth-tui unauthenticate --remote-cluster-id consumer-7", "✓ cluster ID and keys (provider-1, ed25519)")
	v := h.view()
	if strings.Index(v, "✗ Tenant") > strings.Index(v, "✓ cluster ID") {
		t.Fatalf("a passed check before the failed one:\n%s", v)
	}
	h.key("esc")
	if o := h.m.cur.(*overviewScreen); o.act.result != nil || o.act.mode != actList {
		t.Fatalf("esc left %+v", o.act)
	}
}

// Drain (and cordon) ask liqoctl's question first: no, nothing changes;
// yes drains. Uncordon does not ask.
func TestOverviewConfirmsBeforeDrain(t *testing.T) {
	f := newFake()
	h := overviewOf(t, f, providerPeerings())
	h.key("enter", "D")
	h.mustSee("drain is a potentially destructive command: consumer consumer-7 is affected (fake)", "y confirm")
	h.key("n")
	if f.called("MoveTenant") {
		t.Fatalf("drained without a yes: %v", f.calls)
	}
	h.mustSee("Peering with consumer-7")
	h.key("D", "y")
	if !f.called("MoveTenant provider consumer-7 drain") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSee("drain Tenant consumer-7", "Tenant consumer-7 drained (fake)")

	h.key("esc", "down", "enter", "u")
	if !f.called("MoveTenant provider consumer-9 uncordon") {
		t.Fatalf("uncordon asked or did not run: %v", f.calls)
	}
}

// On a consumer's row: verify reaches the provider with the consumer's
// credentials; resources are requested with the form; a slice to delete is picked among the row's, then
// confirmed; unauthenticate, one-sided here, says what stays.
func TestOverviewConsumerActions(t *testing.T) {
	f := newFake()
	f.overview.left = []string{"left on the provider: Tenant consumer-1; remove it there with: kubectl delete tenant consumer-1 -n liqo-tenant-consumer-1"}
	rows := []OverviewRow{{RemoteID: "provider-5", Role: handshake.RoleConsumer, Generation: "v1", Stage: handshake.StageAuthenticated,
		Slices: []SliceInfo{{Name: "gpu"}, {Name: "batch"}}, Health: handshake.Health{Verdict: handshake.VerdictOK}}}
	f.overview.lists = [][]OverviewRow{rows}
	h := newHarness(t, f, Options{Local: ClusterRef{Context: "consumer"}, Role: handshake.RoleConsumer})
	h.key("enter")
	screenIs[*overviewScreen](t, h)
	h.key("enter")
	h.mustSee("cordon, uncordon and drain run on the provider: liqo-auth-tui cordon tenant consumer-1 there")
	h.key("v")
	if !f.called("Verify consumer provider-5") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSee("verify: consumer consumer-1 on provider provider-5", "✓ authenticated as consumer-1", "denied: list secrets (cluster-wide)")

	// Resources are asked with the wizard's form, for this peering, and
	// the form leads back to the overview.
	h.key("enter", "r")
	form := screenIs[*slicesScreen](t, h)
	if form.consumer == nil || form.consumer.Context != "consumer" || form.providerID != "provider-5" {
		t.Fatalf("the form asks %v for provider %s", form.consumer, form.providerID)
	}
	h.key("esc")
	screenIs[*overviewScreen](t, h)

	h.key("enter", "x")
	h.mustSee("Which ResourceSlice of consumer-1 with provider-5?", "› gpu")
	h.key("down", "enter")
	h.mustSee("Delete ResourceSlice batch?")
	h.key("y")
	if !f.called("DeleteResourceSlice consumer batch provider-5") || f.called("DeleteResourceSlice consumer gpu") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSee("ResourceSlice batch deleted")

	h.key("enter", "U")
	h.mustSee("Unauthenticate consumer consumer-1 from provider provider-5?")
	if q := h.m.cur.(*overviewScreen).act.question; !strings.Contains(q, "Only this side is reachable from here") {
		t.Fatalf("one-sided, the question does not say so: %s", q)
	}
	h.key("y")
	if len(f.overview.unauths) != 1 {
		t.Fatalf("unauthenticate ran %d times", len(f.overview.unauths))
	}
	if r := f.overview.unauths[0]; r.Consumer == nil || r.Provider != nil || r.ConsumerID != "consumer-1" || r.ProviderID != "provider-5" || r.Route != handshake.RouteV1 {
		t.Fatalf("request %+v", r)
	}
	h.mustSee("Tenant correctly deleted", "left on the provider: Tenant consumer-1")
}

// Leaving the overview is no handshake left half done: q quits at once.
func TestOverviewQuitIsNotAborted(t *testing.T) {
	h := overviewOf(t, newFake(), providerPeerings())
	h.key("q")
	if !h.quit || h.m.aborted || h.m.confirmQuit {
		t.Fatalf("quit %v aborted %v confirm %v", h.quit, h.m.aborted, h.m.confirmQuit)
	}
}

// Line mode: the peerings numbered; a number opens its actions, the same
// confirmations; n goes on to a new peering.
func TestAccessibleOverview(t *testing.T) {
	f := newFake()
	f.overview.lists = [][]OverviewRow{providerPeerings()}
	out, _ := runLines(t, f, providerOnly(), lines(
		"",  // detect: enter shows the overview
		"1", // consumer-7
		"D", // drain…
		"y", // …confirmed
		"esc",
		"n", // a new peering: detection goes on by itself to the peer screen
	))
	mustPrint(t, out, "Peerings of cluster provider-1", "   1 consumer-7", "drain is a potentially destructive command", "Tenant consumer-7 drained (fake)")
	if !f.called("MoveTenant provider consumer-7 drain") {
		t.Fatalf("calls %v", f.calls)
	}
}

func TestGoldenOverview(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		return overviewOf(t, newFake(), providerPeerings()).m
	})
}

func TestGoldenOverviewDiagnosis(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := newFake()
		f.overview.checks = []DoctorCheck{
			{OK: true, Title: "cluster ID and keys", Detail: "provider-1, ed25519"},
			{Title: "Tenant consumer-9", Cause: "cordoned by this cluster's admin: consumer-9 gets no new resources",
				Fix: "liqo-auth-tui uncordon tenant consumer-9"},
		}
		h := overviewOf(t, f, providerPeerings())
		h.key("down", "enter", "d")
		return h.m
	})
}

// With both clusters (automated mode) the overview reads the remote too
// and the actions reach either side: on the consumer's row, the provider's
// Tenant is cordoned on the remote, and unauthenticate gets both clusters.
func TestOverviewAutomatedReachesBothSides(t *testing.T) {
	f := newFake()
	f.overview.lists = [][]OverviewRow{{{RemoteID: "provider-1", Role: handshake.RoleConsumer, Generation: "v1",
		Stage: handshake.StageAuthenticated, Health: handshake.Health{Verdict: handshake.VerdictOK},
		Remote: &handshake.Peering{Role: handshake.RoleProvider, Generation: "v1", Stage: handshake.StageAuthenticated, TenantCondition: "Active"}}}}
	h := newHarness(t, f, both())
	h.send(wideWindow)
	h.key("enter")
	screenIs[*overviewScreen](t, h)
	h.mustSee("Peerings of cluster consumer-1 with provider-1")
	if !f.called("Overview consumer provider") || !f.called("WatchOverview consumer provider") {
		t.Fatalf("calls %v", f.calls)
	}
	h.key("enter", "c", "y")
	if !f.called("MoveTenant provider consumer-1 cordon") {
		t.Fatalf("calls %v", f.calls)
	}
	h.key("enter", "d")
	if !f.called("Diagnose consumer provider provider-1") {
		t.Fatalf("calls %v", f.calls)
	}
	h.key("enter", "U", "y")
	if r := f.overview.unauths; len(r) != 1 || r[0].Consumer == nil || r[0].Provider == nil || r[0].Provider.Context != "provider" {
		t.Fatalf("unauthenticate got %+v", r)
	}
}

// What fails says so where the admin looks: a watch that cannot start
// under the title (the rows detection read stay), an action's failure with
// its reason and hint in the panel.
func TestOverviewFailures(t *testing.T) {
	f := newFake()
	f.failOp["WatchOverview"] = &Failure{Reason: "watching the peerings: tenants.authentication.liqo.io is forbidden"}
	f.failOp["MoveTenant"] = &Failure{Reason: "Tenant consumer-7 changed while this command ran, so nothing changed: run it again",
		Hint: "another admin changed it meanwhile"}
	h := overviewOf(t, f, providerPeerings())
	h.mustSee("not kept up to date: watching the peerings: tenants.authentication.liqo.io is forbidden", "consumer-7", "provider-5")
	h.key("enter", "c", "y")
	h.mustSee("cordon Tenant consumer-7", "✗ Tenant consumer-7 changed while this command ran, so nothing changed: run it again",
		"another admin changed it meanwhile")
}

package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// A manual consumer's request for resources: the provider is not at hand,
// and only its controller answers (§10.1).

// manualRequestForm brings a manual consumer (authenticated) to the form.
func manualRequestForm(t *testing.T, f *fakeBackend) *harness {
	t.Helper()
	f.stages["consumer/provider-1"] = handshake.StageAuthenticated
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	screenIs[*summaryScreen](t, h)
	h.key("r")
	screenIs[*slicesScreen](t, h)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	return h
}

// Before sending, the form says who answers: nothing known serves the
// provider, so enter first shows what its admin runs (copy, save, print),
// and only the enter there sends the request.
func TestManualRequestHandsTheProviderAdminWhatToRun(t *testing.T) {
	f := newFake()
	h := manualRequestForm(t, f)
	h.mustSee("Who answers: The controller of provider provider-1 must answer it: it runs no Liqo, and whether",
		"If nothing serves it, the request waits unanswered. enter shows what to")
	if !f.called("SliceAnswerer consumer provider-1") {
		t.Fatalf("calls %v", f.calls)
	}
	h.key("tab")
	h.typeText("1")
	h.key("enter")
	screenIs[*handoffScreen](t, h)
	if f.called("RequestResources") {
		t.Fatal("the request went before its hand-off")
	}
	h.mustSee("Send this ResourceSlice request to the provider's admin",
		"# consumer consumer-1 asks provider provider-1 for resources: ResourceSlice provider-1 (class default, cpu 1)",
		"Next, on the provider provider-1, while consumer consumer-1 waits for the answer to ResourceSlice provider-1:",
		"liqo-auth-tui install controller",
		"liqo-auth-tui --role provider --remote-cluster-id consumer-1",
		"kubectl get resourceslices.authentication.liqo.io provider-1 -n liqo-tenant-consumer-1",
		"Enter creates the ResourceSlice on the consumer and then waits for the provider's answer")
	if strings.Count(h.view(), "liqo-auth-tui install controller") != 1 {
		t.Fatalf("the commands are shown twice:\n%s", h.view())
	}
	if !helpHas(h, "request") || !helpHas(h, "copy") || !helpHas(h, "save to file") {
		t.Fatal("the hand-off's help lacks its keys")
	}
	h.key("c")
	if len(h.copied) != 1 || !strings.Contains(h.copied[0], "liqo-auth-tui --role provider --remote-cluster-id consumer-1") {
		t.Fatalf("copied %q", h.copied)
	}
	path := filepath.Join(t.TempDir(), "request.txt")
	h.key("s", "ctrl+u")
	h.typeText(path)
	h.key("enter")
	h.mustSee("Saved to " + path)
	mustBeSaved(t, path, h.copied[0])

	h.key("enter")
	if !f.called("RequestResources consumer provider-1 provider-1 cpu=1 memory= pods= class=default provider=-") {
		t.Fatalf("calls %v", f.calls)
	}
	screenIs[*slicesScreen](t, h)
	h.mustSee("Provider provider-1 granted the ResourceSlice provider-1")
}

// When Liqo serves the provider, its controller-manager answers: the form
// says so, and enter sends at once.
func TestManualRequestToLiqoGoesAtOnce(t *testing.T) {
	f := newFake()
	f.answerer = handshake.AnswererLiqo
	h := manualRequestForm(t, f)
	h.mustSee("Who answers: Liqo's controller-manager on provider provider-1 answers it.")
	if strings.Contains(h.view(), "send its admin") {
		t.Fatalf("a hand-off is announced:\n%s", h.view())
	}
	h.key("enter")
	if !f.called("RequestResources consumer provider-1") {
		t.Fatalf("calls %v", f.calls)
	}
}

// Who answers could not be told: the form says why and treats the provider
// as served by nothing known.
func TestManualRequestAnswererUnknown(t *testing.T) {
	f := newFake()
	f.failOp["SliceAnswerer"] = &Failure{Reason: "cannot use the API server https://consumer:6443: connection refused"}
	h := manualRequestForm(t, f)
	h.mustSee("Who answers: could not tell (cannot use the API server https://consumer:6443: connection refused)")
	h.key("enter")
	screenIs[*handoffScreen](t, h)
}

// The wait that ran out lands on the error screen with the backend's
// reason and hint (the delete command), and retry asks again.
func TestManualRequestUnansweredShowsWhatToRun(t *testing.T) {
	f := newFake()
	f.answerer = handshake.AnswererLiqo
	f.failOp["RequestResources"] = &Failure{Timeout: true,
		Reason: "Failed waiting for the ResourceSlice to be accepted: no answer from provider provider-1 to ResourceSlice provider-1: the request reached it (namespace liqo-tenant-consumer-1) but nothing there answered",
		Hint:   "most likely nothing serves provider provider-1; then request it again, or remove it: `" + handshake.DeleteSliceCommand("provider-1", "provider-1") + "`"}
	h := manualRequestForm(t, f)
	h.key("enter")
	screenIs[*errorScreen](t, h)
	h.mustSee("nothing there answered", "remove it: `liqo-auth-tui delete", "resourceslice provider-1 --remote-cluster-id provider-1`")
	delete(f.failOp, "RequestResources")
	h.key("r")
	screenIs[*slicesScreen](t, h)
	if n := strings.Count(strings.Join(f.calls, "\n"), "RequestResources"); n != 2 {
		t.Fatalf("%d requests, want 2: %v", n, f.calls)
	}
}

// In line mode the hand-off prints the request and offers to save it;
// the request goes after it.
func TestAccessibleManualRequestHandsOff(t *testing.T) {
	f := newFake()
	f.stages["consumer/provider-1"] = handshake.StageAuthenticated
	out, err := runLines(t, f, consumerOnly(), lines(
		"", "", // detect, peer
		"r",                 // summary: request resources
		"", "2", "", "", "", // the fields
		"", // request
		"", // the hand-off: no file
		"", // the answer: back to the summary
		"", // finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"Who answers: The controller of provider provider-1 must answer it",
		"Send this ResourceSlice request to the provider's admin.",
		"# ResourceSlice request for the provider's admin\n# consumer consumer-1 asks provider provider-1 for resources: ResourceSlice provider-1 (class default, cpu 2)\n",
		"\nliqo-auth-tui install controller\n",
		"Save it to a file? Type a path (for example ./resourceslice-request.txt)",
		"✓ Provider provider-1 granted the ResourceSlice provider-1")
	if !f.called("RequestResources consumer provider-1 provider-1 cpu=2") {
		t.Fatalf("calls %v", f.calls)
	}
}

// providerSummary brings a manual provider to its summary.
func providerSummary(t *testing.T, f *fakeBackend) *harness {
	t.Helper()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	o := providerOnly()
	o.PeerID = "consumer-1"
	h := newHarness(t, f, o)
	h.key("enter", "enter", "enter")
	screenIs[*summaryScreen](t, h)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	return h
}

var inProcess = ProviderSlices{Engine: handshake.EngineInProcess}

// The manual provider's summary serves the provider and shows the
// consumer's requests as they come and are answered.
func TestProviderSummaryServesRequests(t *testing.T) {
	f := newFake()
	answered := inProcess
	answered.Slices = []SliceInfo{{Name: "s1", Authentication: "Accepted", Resources: "Accepted", Granted: map[string]string{"cpu": "1"}}}
	pending := inProcess
	pending.Slices = []SliceInfo{{Name: "s1"}}
	f.serveStates = []ProviderSlices{inProcess, pending, answered}
	h := providerSummary(t, f)
	if !f.called("ServeSlices provider consumer-1") {
		t.Fatalf("calls %v", f.calls)
	}
	h.mustSee("resources (consumer consumer-1's ResourceSlices on this provider)",
		"This wizard answers them in-process while this summary is open: enter ends it.",
		"`liqo-auth-tui install controller`",
		"s1  authentication Accepted · resources Accepted · granted cpu 1")
}

// Another engine serves the provider: the summary says which; no slice
// yet says where they will show.
func TestProviderSummaryNamesWhatServes(t *testing.T) {
	f := newFake()
	f.serveStates = []ProviderSlices{{Engine: "liqo-auth-controller (in-cluster)"}}
	h := providerSummary(t, f)
	h.mustSee("liqo-auth-controller (in-cluster) answers them.", "none yet: they appear here when the consumer requests resources")
}

// Serving that cannot start (or stops) says why, and what serves the
// requests for good.
func TestProviderSummaryServeFailure(t *testing.T) {
	f := newFake()
	f.serveErr = &Failure{Reason: "in-process provider controllers on https://127.0.0.1:7443: another run holds the Lease"}
	h := providerSummary(t, f)
	h.mustSee("not served from here: in-process provider controllers on https://127.0.0.1:7443: another run holds the Lease",
		"If nothing else serves this provider, its requests wait unanswered: `liqo-auth-tui install controller`")
}

// Serving lasts until the wizard ends, which stops it (the Lease goes
// back) before Run returns; line mode prints who serves and each answer.
func TestAccessibleProviderSummaryServesUntilTheEnd(t *testing.T) {
	f := newFake()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	answered := inProcess
	answered.Slices = []SliceInfo{{Name: "s1", Authentication: "Accepted", Resources: "Accepted"}}
	f.serveStates, f.serveBlock = []ProviderSlices{inProcess, answered}, true
	o := providerOnly()
	o.PeerID = "consumer-1"
	out, err := runLines(t, f, o, lines(
		"", "", // detect, peer
		"", // advertise: continue
		"", // the Identity: no file
		"", // finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"This wizard answers consumer consumer-1's ResourceSlices in-process until it ends",
		"ResourceSlice s1 of consumer consumer-1: authentication Accepted, resources Accepted")
	if !f.called("ServeSlices stopped") {
		t.Fatalf("serving did not stop with the wizard: %v", f.calls)
	}
}

// stopServing ends the serving and waits for it.
func TestStopServingWaitsForTheEnd(t *testing.T) {
	f := newFake()
	f.serveStates, f.serveBlock = []ProviderSlices{inProcess}, true
	s := newSession(context.Background(), Options{Backend: f, Local: ClusterRef{Context: "provider"}, Role: handshake.RoleProvider, PeerID: "consumer-1"})
	s.mode = ModeManual
	if !s.servesSlices() {
		t.Fatal("a manual provider's session does not serve")
	}
	sv := s.serveSlices(nil)
	if again := s.serveSlices(nil); again != sv {
		t.Fatal("serving started twice")
	}
	select {
	case msg := <-sv.updates:
		if m, ok := msg.(servedMsg); !ok || !m.ps.InProcess() {
			t.Fatalf("first update %#v", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no update")
	}
	s.stopServing()
	select {
	case <-sv.done:
	default:
		t.Fatal("stopServing returned before serving ended")
	}
	if !f.called("ServeSlices stopped") || sv.err != nil {
		t.Fatalf("calls %v, err %v", f.calls, sv.err)
	}
}

func TestGoldenSliceRequestHandoff(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h := manualRequestForm(t, newFake())
		h.key("enter")
		screenIs[*handoffScreen](t, h)
		return h.m
	})
}

func TestGoldenProviderSummaryServing(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := newFake()
		answered := inProcess
		answered.Slices = []SliceInfo{{Name: "s1", Authentication: "Accepted", Resources: "Accepted", Granted: map[string]string{"cpu": "1", "memory": "2Gi"}},
			{Name: "s2"}}
		f.serveStates = []ProviderSlices{answered}
		return providerSummary(t, f).m
	})
}

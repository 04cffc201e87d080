package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

const requestHelp = "request resources"

// requestForm brings an automated consumer to the summary, then to the
// request form (r).
func requestForm(t *testing.T, f *fakeBackend) (*harness, *slicesScreen) {
	t.Helper()
	h := newHarness(t, f, both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	if !helpHas(h, requestHelp) {
		t.Fatal("the summary does not offer to request resources")
	}
	h.key("r")
	return h, screenIs[*slicesScreen](t, h)
}

// fill types values into the form's fields, by field id.
func fill(h *harness, m *slicesScreen, values map[string]string) {
	for i, f := range sliceFields {
		if v, ok := values[f.id]; ok {
			m.inputs[i].SetValue(v)
		}
	}
}

// The form starts from liqoctl peer's defaults (the slice named after the
// provider, the default class) with nothing requested, and says that it
// may be skipped.
func TestSlicesFormDefaults(t *testing.T) {
	h, m := requestForm(t, newFake())
	h.mustSee("Request resources from provider provider-1 (optional)", "esc skips this step",
		"Name   > provider-1", "Class  > default", "CPU    > e.g. 4 or 500m (empty: the provider decides)")
	req := m.request()
	// In automated mode the provider's side may be served in-process.
	if req.Provider == nil || req.Provider.Context != "provider" {
		t.Fatalf("request without the provider: %+v", req)
	}
	req.Provider = nil
	want := SliceRequest{Name: "provider-1", ProviderID: "provider-1", Class: "default"}
	if req != want {
		t.Fatalf("request %+v, want %+v", req, want)
	}
	if !h.m.cur.Typing() {
		t.Fatal("q would quit from a text field")
	}
	for _, k := range []string{"request", "next field", "previous field", "skip"} {
		if !helpHas(h, k) {
			t.Errorf("the form's help lacks %q", k)
		}
	}
}

// The default name is the provider's ID, or the first free one after it:
// a slice asks once, the same name again asks nothing new.
func TestSlicesDefaultNameAvoidsExistingSlices(t *testing.T) {
	f := newFake()
	f.slices = []SliceInfo{{Name: "provider-1"}, {Name: "provider-1-2"}}
	_, m := requestForm(t, f)
	if got := m.request().Name; got != "provider-1-3" {
		t.Fatalf("default name %q, want provider-1-3", got)
	}
}

// A bad value is refused on submit with one line, on the field at fault,
// and nothing is requested; editing the field clears the line.
func TestSlicesFormValidatesOnSubmit(t *testing.T) {
	f := newFake()
	h, m := requestForm(t, f)
	h.key("tab") // CPU
	h.typeText("lots")
	h.key("tab", "tab") // Pods: the error must bring the focus back to CPU
	h.key("enter")
	screenIs[*slicesScreen](t, h)
	h.mustSee(`✗ cpu: "lots" is not a quantity (e.g. 4, 500m, 8Gi)`)
	if m.focus != 1 {
		t.Fatalf("focus on field %d, want the CPU's (1)", m.focus)
	}
	if f.called("RequestResources") {
		t.Fatal("a bad request was sent")
	}
	h.typeText("x")
	if m.err != "" {
		t.Fatalf("the error stays after an edit: %q", m.err)
	}

	fill(h, m, map[string]string{handshake.FieldSliceName: "  ", handshake.FieldCPU: "4"})
	h.key("enter")
	h.mustSee("✗ type a name for the ResourceSlice (liqoctl peer names it after the provider: provider-1)")
	if m.focus != 0 {
		t.Fatalf("focus on field %d, want the name's (0)", m.focus)
	}
	fill(h, m, map[string]string{handshake.FieldSliceName: "Bad_Name"})
	h.key("enter")
	h.mustSee(`✗ "Bad_Name" is not a valid ResourceSlice name`)
	if f.called("RequestResources") {
		t.Fatal("a bad request was sent")
	}
}

// esc skips the step: back on the summary, nothing requested.
func TestSlicesFormSkip(t *testing.T) {
	f := newFake()
	h, _ := requestForm(t, f)
	h.key("esc")
	screenIs[*summaryScreen](t, h)
	if f.called("RequestResources") {
		t.Fatal("skipping requested resources")
	}
	h.mustSee("none yet: r requests resources from the provider (optional)")
}

// Submitting runs the request with progress, shows the provider's answer
// (granted resources, the Identity and kubeconfig Secret), and the summary
// then lists the slice.
func TestSlicesSubmitShowsTheAnswer(t *testing.T) {
	f := newFake()
	h, m := requestForm(t, f)
	fill(h, m, map[string]string{handshake.FieldSliceName: "gpu-pool", handshake.FieldCPU: "4", handshake.FieldMemory: "8Gi", handshake.FieldPods: "110", handshake.FieldClass: ""})
	h.key("enter")
	if !f.called("RequestResources consumer provider-1 gpu-pool cpu=4 memory=8Gi pods=110 class=default provider=provider") {
		t.Fatalf("calls %v", f.calls)
	}
	r := screenIs[*slicesScreen](t, h)
	if r.result == nil || r.Typing() {
		t.Fatal("the answer is not shown")
	}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.mustSee("✓ Provider provider-1 granted the ResourceSlice gpu-pool",
		"Authentication:      Accepted", "Resources:           Accepted",
		"Requested:           cpu 4, memory 8Gi, pods 110", "Granted:             cpu 4, memory 8Gi, pods 110",
		"Identity:            liqo-tenant-provider-1/resourceslice-gpu-pool",
		"Kubeconfig Secret:   liqo-tenant-provider-1/kubeconfig-resourceslice-gpu-pool",
		"Certificate expires: 2027-01-01 12:00 UTC (in 365d)")
	if !helpHas(h, "summary") || !helpHas(h, "request more resources") {
		t.Fatal("the answer's help lacks its keys")
	}
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("NAME      AUTHENTICATION  RESOURCES  CPU  MEMORY  PODS  CERTIFICATE EXPIRES",
		"gpu-pool  Accepted        Accepted   4    8Gi     110   2027-01-01",
		"r requests more resources (optional)")

	// r on the answer opens a new form.
	h.key("r")
	screenIs[*slicesScreen](t, h)
	h.key("enter")
	h.key("r")
	if m := screenIs[*slicesScreen](t, h); m.result != nil {
		t.Fatal("r did not open a new form")
	}
}

// A denial is an answer, not a failure: the reason is shown, and listed
// on the summary.
func TestSlicesDeniedShowsTheReason(t *testing.T) {
	f := newFake()
	f.sliceDenial = "the Tenant is cordoned: new ResourceSlices get no resources"
	h, _ := requestForm(t, f)
	h.key("enter")
	screenIs[*slicesScreen](t, h)
	h.mustSee("✗ Provider provider-1 denied the ResourceSlice provider-1", "Resources:           Denied",
		"Granted:             -", "Message:             the Tenant is cordoned", "ask its admin, or request less under another name (r)")
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("provider-1  Accepted        Denied     -    -       -     2027-01-01",
		"✗ provider-1: the Tenant is cordoned: new ResourceSlices get no resources")
}

// A failed request goes to the error screen, whose retry requests again.
func TestSlicesFailureRetries(t *testing.T) {
	f := newFake()
	h, _ := requestForm(t, f)
	f.failOp["RequestResources"] = &Failure{Reason: "(local) Failed waiting for the ResourceSlice: timeout", Timeout: true}
	h.key("enter")
	screenIs[*errorScreen](t, h)
	h.mustSee("Failed waiting for the ResourceSlice")
	delete(f.failOp, "RequestResources")
	h.key("r")
	if m := screenIs[*slicesScreen](t, h); m.result == nil || m.result.Name != "provider-1" {
		t.Fatalf("retry did not show the answer: %+v", m.result)
	}
}

// Only a summary that reaches the consumer offers it, and lists slices:
// not the provider's manual side.
func TestSlicesNotOfferedWithoutTheConsumer(t *testing.T) {
	f := newFake()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	o := providerOnly()
	o.PeerID = "consumer-1"
	h := newHarness(t, f, o)
	h.key("enter", "enter", "enter")
	screenIs[*summaryScreen](t, h)
	if helpHas(h, requestHelp) {
		t.Fatal("the provider's summary offers to request resources")
	}
	h.key("r")
	screenIs[*summaryScreen](t, h)
	if f.called("ResourceSlices") || f.called("RequestResources") {
		t.Fatalf("calls %v", f.calls)
	}
	if strings.Contains(h.view(), "request resources") {
		t.Fatalf("the provider's summary offers requests:\n%s", h.view())
	}
}

// The manual consumer's summary offers it too: its own cluster is the
// consumer, the provider is the peer.
func TestSlicesOfferedToTheManualConsumer(t *testing.T) {
	f := newFake()
	f.stages["consumer/provider-1"] = handshake.StageAuthenticated
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	screenIs[*summaryScreen](t, h)
	if !helpHas(h, requestHelp) || !f.called("ResourceSlices consumer provider-1") {
		t.Fatalf("the manual consumer's summary does not offer resources; calls %v", f.calls)
	}
	h.key("r")
	screenIs[*slicesScreen](t, h)
	h.mustSee("Request resources from provider provider-1", "Name   > provider-1")
	// Nothing known serves the provider: its admin gets a word first.
	h.key("enter")
	screenIs[*handoffScreen](t, h)
	h.key("enter")
	if !f.called("RequestResources consumer provider-1 provider-1 cpu= memory= pods= class=default provider=-") {
		t.Fatalf("calls %v", f.calls)
	}
}

// In line mode the summary's menu offers the request; the fields are line
// prompts whose empty answer keeps the value in brackets and "-" empties
// it; a bad value is refused with one line and asked again; the answer is
// printed, then the summary lists the slice.
func TestAccessibleRequestResources(t *testing.T) {
	f := newFake()
	out, err := runLines(t, f, both(), lines(
		"",     // detect: continue
		"r",    // summary: request resources
		"",     // name: provider-1
		"4",    // cpu
		"lots", // memory
		"",     // pods: the provider decides
		"",     // class: default
		"",     // request
		"",     // name
		"-",    // cpu: now the provider decides
		"8Gi",  // memory again
		"",     // pods
		"",     // class
		"",     // request
		"",     // the answer: back to the summary
		"",     // finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mustPrint(t, out,
		"  enter  finish\n  v      verify again\n  r      request resources\n",
		"Request resources from provider provider-1 (optional)",
		"Name [provider-1]",
		"CPU, e.g. 4 or 500m [empty = the provider decides]",
		"Request these resources? Type a key, then Return:\n  enter  request\n  esc    skip\n",
		`✗ memory: "lots" is not a quantity (e.g. 4, 500m, 8Gi)`,
		"CPU, e.g. 4 or 500m [4; - = the provider decides]",
		"Memory, e.g. 8Gi [lots; - = the provider decides]",
		"Requesting resources from provider provider-1 (ResourceSlice provider-1)",
		" INFO   (local) create-resourceslice done\n",
		"✓ Provider provider-1 granted the ResourceSlice provider-1",
		"Requested:           memory 8Gi",
		"Kubeconfig Secret:   liqo-tenant-provider-1/kubeconfig-resourceslice-provider-1",
		"What next? Type a key, then Return:\n  enter  summary\n  r      request more resources\n",
		"provider-1  Accepted        Accepted   2    8Gi     110   2027-01-01",
	)
	if n := strings.Count(strings.Join(f.calls, "\n"), "RequestResources"); n != 1 {
		t.Fatalf("%d requests, want 1: %v", n, f.calls)
	}
	if !f.called("RequestResources consumer provider-1 provider-1 cpu= memory=8Gi pods= class=default provider=provider") {
		t.Fatalf("calls %v", f.calls)
	}
}

// In line mode esc at the request's menu skips it.
func TestAccessibleSkipRequest(t *testing.T) {
	f := newFake()
	out, err := runLines(t, f, both(), lines(
		"",  // detect: continue
		"r", // summary: request resources
		"", "4", "", "", "",
		"esc", // skip
		"",    // finish
	))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if f.called("RequestResources") {
		t.Fatal("skipping requested resources")
	}
	if n := strings.Count(out, "none yet: r requests resources from the provider (optional)"); n != 2 {
		t.Fatalf("the summary was printed %d times, want 2 (before and after the skipped request)", n)
	}
}

func TestGoldenSlicesForm(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h, m := requestForm(t, newFake())
		fill(h, m, map[string]string{handshake.FieldCPU: "4", handshake.FieldMemory: "eight"})
		h.key("enter")
		return h.m
	})
}

func TestGoldenSlicesAnswer(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h, m := requestForm(t, newFake())
		fill(h, m, map[string]string{handshake.FieldCPU: "4", handshake.FieldMemory: "8Gi", handshake.FieldPods: "110"})
		h.key("enter")
		screenIs[*slicesScreen](t, h)
		return h.m
	})
}

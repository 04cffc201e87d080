package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func TestSummaryShowsCertificateExpiry(t *testing.T) {
	h := newHarness(t, newFake(), both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Certificate expires: 2027-01-01 12:00 UTC (in 365d)")
}

func TestSummaryExpiryFromVerifyWhenResuming(t *testing.T) {
	f := newFake()
	f.stages["consumer/provider-1"] = handshake.StageAuthenticated
	h := newHarness(t, f, consumerOnly())
	h.key("enter", "enter")
	screenIs[*summaryScreen](t, h)
	if h.m.s.auth != nil {
		t.Fatal("resuming an authenticated consumer ran the handshake")
	}
	h.mustSee("Certificate expires: 2027-01-01 12:00 UTC")
}

func TestProviderSummaryShowsCertificateExpiry(t *testing.T) {
	f := newFake()
	f.stages["provider/consumer-1"] = handshake.StageGenerateIdentity
	o := providerOnly()
	o.PeerID = "consumer-1"
	h := newHarness(t, f, o)
	h.key("enter", "enter")
	screenIs[*handoffScreen](t, h)
	h.mustSee("Certificate expires: 2027-01-01 12:00 UTC (in 365d)")
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Provider side done", "Certificate expires: 2027-01-01 12:00 UTC")
}

func TestExpiryWarnsWhenNearOrPast(t *testing.T) {
	for _, c := range []struct {
		left time.Duration
		want string
	}{
		{400 * 24 * time.Hour, "(in 400d)"},
		{365*24*time.Hour - 5*time.Minute, "(in 365d)"},
		{10 * 24 * time.Hour, "(in 10d: check that it gets renewed)"},
		{90 * time.Minute, "(in 90m: check that it gets renewed)"},
		{-time.Hour, "(expired 60m ago: authenticate again"},
	} {
		got := ansi.Strip(expiry(fixedNow.Add(c.left), fixedNow))
		if !strings.Contains(got, c.want) {
			t.Errorf("expiry in %v = %q, want %q", c.left, got, c.want)
		}
	}
}

func TestSummaryWrapsLongValuesInsteadOfCutting(t *testing.T) {
	const provider = "418885f6-4b86-426a-b20d-7937cb34de04"
	secret := "liqo-tenant-" + provider + "/kubeconfig-controlplane-" + provider
	h := newHarness(t, newFake(), both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.m.s.auth.KubeconfigSecret = secret
	for _, w := range []int{80, 120} {
		h.send(tea.WindowSizeMsg{Width: w, Height: 40})
		lines := strings.Split(h.view(), "\n")
		v := strings.Join(lines[2:len(lines)-1], "\n") // between the header and the help bar, which may be cut
		if strings.Contains(v, "…") {
			t.Fatalf("a value is cut at width %d:\n%s", w, v)
		}
		if !strings.Contains(strings.Join(strings.Fields(v), ""), secret) {
			t.Fatalf("the Secret's name is not whole at width %d:\n%s", w, v)
		}
	}
}

// The summary shows when the consumer's certificate was last renewed,
// from verify: never, or the time and how long ago (fixed clock).
func TestSummaryShowsLastRenewal(t *testing.T) {
	h := newHarness(t, newFake(), both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Last renewal:        never (the certificate is renewed at 2/3 of its validity)")

	f := newFake()
	f.lastRenewal = fixedNow.Add(-3*24*time.Hour - 2*time.Hour)
	h = newHarness(t, f, both())
	h.key("enter")
	h.mustSee("Last renewal:        2025-12-29 10:00 UTC (3d2h ago)")

	// Verify again reads it again: a renewal since shows at once.
	f.mu.Lock()
	f.lastRenewal = fixedNow.Add(-5 * time.Minute)
	f.mu.Unlock()
	h.key("v")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Last renewal:        2026-01-01 11:55 UTC (5m ago)")
}

// Without verify's reading of the Identity the renewal is unknown: no row.
func TestSummaryNoRenewalRowWhenUnknown(t *testing.T) {
	h := newHarness(t, newFake(), both())
	h.key("enter")
	h.m.s.verification.CertificateNotAfter = time.Time{}
	if v := h.view(); strings.Contains(v, "Last renewal") {
		t.Fatalf("renewal shown without the Identity:\n%s", v)
	}
}

// fakeSlices are a granted slice, a denied one, and one the provider has
// not answered yet, whose certificate is near its end.
func fakeSlices() []SliceInfo {
	return []SliceInfo{
		{Name: "provider-1", ProviderID: "provider-1", Authentication: "Accepted", Resources: "Accepted",
			Granted: map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"}, NotAfter: fakeExpiry},
		{Name: "gpu", ProviderID: "provider-1", Authentication: "Accepted", Resources: "Denied", Message: "no GPUs left", NotAfter: fixedNow.Add(10 * 24 * time.Hour)},
		{Name: "later", ProviderID: "provider-1"},
	}
}

// The consumer's ResourceSlices with the provider: a line each with the
// provider's answers, what it granted and the certificate's expiry.
func TestSummaryListsResourceSlices(t *testing.T) {
	f := newFake()
	f.slices = fakeSlices()
	h := newHarness(t, f, both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	if !f.called("ResourceSlices consumer provider-1") {
		t.Fatalf("calls %v", f.calls)
	}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 50})
	h.mustSee("resources (the consumer's ResourceSlices with this provider)",
		"  NAME        AUTHENTICATION  RESOURCES  CPU  MEMORY  PODS  CERTIFICATE EXPIRES\n",
		"  provider-1  Accepted        Accepted   4    8Gi     110   2027-01-01\n",
		"  gpu         Accepted        Denied     -    -       -     2026-01-11\n",
		"  later       pending         pending    -    -       -     -\n",
		"  ✗ gpu: no GPUs left",
		"r requests more resources (optional)")

	// Narrower than the table: one block per slice, nothing cut.
	h.send(tea.WindowSizeMsg{Width: 60, Height: 80})
	v := h.view()
	if strings.Contains(v, "CERTIFICATE EXPIRES") {
		t.Fatalf("the table is drawn wider than the window:\n%s", v)
	}
	h.mustSee("  ResourceSlice:       gpu\n  Authentication:      Accepted\n  Resources:           Denied\n  Granted:             -\n",
		"  Certificate expires: 2026-01-11 12:00 UTC (in 10d:")
}

// A failure to list the slices is one line; the rest of the summary stays.
func TestSummarySlicesListFailure(t *testing.T) {
	f := newFake()
	f.failOp["ResourceSlices"] = &Failure{Reason: "resourceslices.authentication.liqo.io is forbidden"}
	h := newHarness(t, f, both())
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("⚠ could not list them: resourceslices.authentication.liqo.io is forbidden", "Kubeconfig Secret:", "Denied:")
}

// A summary taller than the window scrolls, and says what is hidden.
func TestSummaryScrolls(t *testing.T) {
	f := newFake()
	f.slices = fakeSlices()
	h := newHarness(t, f, both())
	h.key("enter")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.view() // draw once: the help knows then that it scrolls
	h.mustSee("more line(s) below: ↓ scrolls")
	if !helpHas(h, "scroll") {
		t.Fatal("the help does not offer to scroll")
	}
	if strings.Contains(h.view(), "Denied:              1") {
		t.Fatal("the bottom is shown before scrolling")
	}
	for range 20 {
		h.key("down")
	}
	h.mustSee("Denied:              1", "line(s) above: ↑ scrolls")
	h.key("up")
	h.mustSee("more line(s) below")
}

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
	h.mustSee("Certificate expires: 2027-01-01 12:00 UTC (in 365 days)")
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
	h.mustSee("Certificate expires: 2027-01-01 12:00 UTC (in 365 days)")
	h.key("enter")
	screenIs[*summaryScreen](t, h)
	h.mustSee("Provider side done", "Certificate expires: 2027-01-01 12:00 UTC")
}

func TestExpiryWarnsWhenNearOrPast(t *testing.T) {
	for _, c := range []struct {
		left time.Duration
		want string
	}{
		{400 * 24 * time.Hour, "(in 400 days)"},
		{365*24*time.Hour - 5*time.Minute, "(in 365 days)"},
		{10 * 24 * time.Hour, "(in 10 days: check that it gets renewed)"},
		{90 * time.Minute, "(in 1h30m0s)"},
		{-time.Hour, "(expired: authenticate again"},
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
		v := strings.Join(lines[2:], "\n") // below the header, which may be cut
		if strings.Contains(v, "…") {
			t.Fatalf("a value is cut at width %d:\n%s", w, v)
		}
		if !strings.Contains(strings.Join(strings.Fields(v), ""), secret) {
			t.Fatalf("the Secret's name is not whole at width %d:\n%s", w, v)
		}
	}
}

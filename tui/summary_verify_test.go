package tui

import (
	"strings"
	"testing"
)

// A verification that could not reach the provider through Liqo's in-band
// proxy says so, on the summary and on the overview, and lists no checks.
func TestUnreachedVerificationIsSaid(t *testing.T) {
	v := &Verification{Server: "https://provider.example:6443", TenantNamespace: "liqo-tenant-consumer-1",
		Unreached: "https://provider.example:6443 does not answer from this machine through Liqo's in-band proxy http://10.81.0.9:8118, which is reachable only inside Liqo's network fabric"}
	var b strings.Builder
	var rows []string
	verified := (&summaryScreen{}).verifySection(&b, func(k, v string) { rows = append(rows, k+" "+v) }, v)
	if verified {
		t.Error("an unreached verification is not a verification")
	}
	got := strings.Join(rows, "\n")
	if !strings.Contains(got, "Not verified: "+v.Unreached) || strings.Contains(got, "Authenticated as:") || strings.Contains(got, "Denied:") {
		t.Errorf("summary rows:\n%s", got)
	}
	lines := verificationLines(v)
	if len(lines) != 1 || !strings.Contains(lines[0], "not verified from this workstation: ") || !strings.Contains(lines[0], "reachable only inside Liqo's network fabric") {
		t.Errorf("overview lines: %q", lines)
	}
}

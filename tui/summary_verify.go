package tui

import (
	"fmt"
	"strings"
)

// verifySection shows what verify found; false when it could not verify
// from this workstation (the provider reached through Liqo's in-band
// proxy, reachable only inside Liqo's network fabric), which it says.
func (m *summaryScreen) verifySection(b *strings.Builder, row func(k, v string), v *Verification) bool {
	b.WriteString(styleBold.Render("verify") + styleSubtle.Render(" (the Secret's credentials, used from this workstation)") + "\n")
	row("API server:", v.Server)
	if v.Unreached != "" {
		row("Tenant namespace:", v.TenantNamespace)
		row("Not verified:", v.Unreached)
		return false
	}
	row("Authenticated as:", v.User)
	row("Groups:", strings.Join(v.Groups, ", "))
	row("Tenant namespace:", v.TenantNamespace)
	row("Allowed:", styleOK.Render(fmt.Sprintf("%d", len(v.Allowed))))
	denied := fmt.Sprintf("%d", len(v.Denied))
	row("Denied:", denied+styleSubtle.Render(" (expected: the consumer gets narrow permissions)"))
	if m.details {
		b.WriteString("\n")
		for _, a := range v.Allowed {
			b.WriteString("  " + styleOK.Render(iconDone) + " " + a + "\n")
		}
		for _, d := range v.Denied {
			b.WriteString("  " + styleSubtle.Render(iconFailed+" "+d) + "\n")
		}
	}
	return true
}

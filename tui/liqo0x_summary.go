package tui

import (
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// liqo0xSummary ends the Liqo 0.x flow: who authenticated as whom, with
// what certificate, whether TLS was verified, and the provider's warning.
// The manual provider's side ends once its peer info is handed over.
func (m *summaryScreen) liqo0xSummary(b *strings.Builder, row func(k, v string), width int) {
	s := m.s
	inner := max(width-2, 20)
	res := s.liqo0xResult
	if res == nil {
		m.peerInfoSummary(b, row, width)
		return
	}
	title := iconDone + " Authenticated with the Liqo 0.x provider"
	if res.AlreadyAuthenticated {
		title = iconDone + " Already authenticated with the Liqo 0.x provider"
	}
	b.WriteString(styleOK.Render(title) + "\n")
	if res.AuthenticationDisabled {
		b.WriteString(warningBlock(handshake.AuthenticationDisabledWarning(""), width) + "\n")
	} else if s.peerInfo != nil && s.peerInfo.Warning != "" {
		b.WriteString(warningBlock(s.peerInfo.Warning, width) + "\n")
	}
	b.WriteString("\n")
	row("Consumer:", res.ConsumerID)
	row("Provider:", res.ProviderID)
	by := "the consumer's Liqo 0.x"
	if res.ByTool {
		by = "this tool (the consumer has no Liqo 0.x)"
	}
	row("Authenticated by:", by)
	row("Identity Secret:", orDefault(res.IdentitySecret, "unknown"))
	row("Authenticates as:", orDefault(res.User, "unknown"))
	if len(res.Groups) > 0 {
		row("Groups:", strings.Join(res.Groups, ", "))
	}
	if !res.Issued.IsZero() {
		row("Issued:", when(res.Issued))
	}
	if !res.NotAfter.IsZero() {
		row("Certificate expires:", expiry(res.NotAfter, s.now()))
	}
	tls := styleOK.Render("verified") + ": the auth server's certificate was trusted"
	if !res.TLSVerified {
		tls = styleWarn.Render("skipped") + ": the auth server's certificate could not be verified (Liqo's default, a self-signed certificate), so it was not checked"
	}
	if res.AlreadyAuthenticated {
		tls = styleSubtle.Render("not used: nothing was sent")
	}
	row("TLS:", tls)
	if !res.ByTool {
		peering := "off: authentication only; peering stays liqoctl's"
		if s.liqo0xOpts.Peer {
			peering = "on (outgoingPeeringEnabled: Yes)"
		}
		row("Outgoing peering:", peering)
	}
	b.WriteString("\n")
	if res.AlreadyAuthenticated {
		reused := "Liqo reused it"
		if res.ByTool {
			reused = "this tool reused it"
		}
		b.WriteString(styleWarn.Render(wrapWords("The consumer already held an identity for this provider (issued "+orDefault(dateOf(res.Issued), "at an unknown time")+
			", expires "+orDefault(dateOf(res.NotAfter), "at an unknown time")+"): "+reused+" and the token was not sent.", inner)) + "\n\n")
	}
	next := "`liqo-auth-tui verify --remote-cluster-id " + res.ProviderID + "` proves, from a workstation, what the identity may do on the provider."
	if !res.ByTool {
		next = "Peering stays liqoctl's: `liqoctl peer out-of-band` (or the ForeignCluster's outgoingPeeringEnabled) starts it. " + next
	}
	b.WriteString(wrapWords(next, inner))
	if s.mode == ModeManual {
		b.WriteString("\n" + styleSubtle.Render(wrapWords("The consumer cluster itself must reach the provider's auth server and API server.", inner)))
	}
}

// peerInfoSummary is the manual provider's end: the peer info was handed
// over; the consumer's admin authenticates with it.
func (m *summaryScreen) peerInfoSummary(b *strings.Builder, row func(k, v string), width int) {
	art := m.s.peerInfo
	b.WriteString(styleOK.Render(iconDone+" Liqo 0.x peer info handed over") + "\n")
	if art.Warning != "" {
		b.WriteString(warningBlock(art.Warning, width) + "\n")
	}
	b.WriteString("\n")
	row("Provider:", orDefault(art.FromID, m.s.ownID()))
	if art.APIServer != "" {
		row("Auth URL:", art.APIServer)
	}
	b.WriteString("\n" + wrapWords("The consumer's admin pastes it into liqo-auth-tui (or runs the command shown with it). "+
		"This provider issues ONE identity per consumer cluster ID; nothing changed on this cluster.", max(width-2, 20)))
}

// when is a time in UTC; dateOf the same, "" for the zero time.
func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 MST") }

func dateOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return when(t)
}

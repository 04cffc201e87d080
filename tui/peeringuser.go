package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The peering user (§9.4) is the provider's third way to hand over: instead
// of the nonce (then the Identity), the consumer's admin gets a restricted
// kubeconfig of the provider and runs the automated flow alone with it as
// --remote-kubeconfig. The hand-off screen of the nonce offers it (u); the
// kubeconfig then travels by the same hand-off, saved (0600) or printed,
// never copied: it holds a private key.

func peeringUserKey() key.Binding {
	return key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "restricted kubeconfig (peering user)"))
}

// offersPeeringUser tells whether the hand-off offers a peering user
// instead: the provider's nonce.
func (h *handoffScreen) offersPeeringUser() bool {
	return h.art.Kind == handshake.KindNonce && h.s.selfRole() == handshake.RoleProvider
}

// opGeneratePeeringUser makes the peering user of the consumer and hands
// its kubeconfig over.
func opGeneratePeeringUser(s *session) operation {
	var steps ProviderHandshake = s.backend
	return makeAndHandOver(s, "Making a peering user (restricted kubeconfig) for the admin of consumer ", "Generate peering user",
		func(s *session) **Artifact { return &s.peeringUser }, steps.GeneratePeeringUser)
}

// kindLines are the hand-off's lines particular to the peering user: the
// offer on the nonce's, the user, server and expiry on the kubeconfig's.
func (h *handoffScreen) kindLines(now time.Time) []string {
	art := h.art
	switch {
	case art.Masked || art.Kind == handshake.KindPeerInfo:
		return h.peerInfoLines()
	case art.Kind == handshake.KindSliceRequest:
		return []string{h.s.sendRequestLine()}
	case h.offersPeeringUser():
		return []string{styleSubtle.Render("Third way: u makes a restricted kubeconfig (peering user) with which the consumer's admin runs the whole handshake alone.")}
	case art.Kind != handshake.KindPeeringUser:
		return nil
	}
	out := []string{"Peering user: " + art.User}
	if art.APIServer != "" {
		out = append(out, "API server: "+art.APIServer+styleSubtle.Render(" (the consumer's admin must reach it)"))
	}
	if !art.NotAfter.IsZero() {
		out = append(out, "Certificate expires: "+expiry(art.NotAfter, now))
	}
	return out
}

// printed is what p prints: the kubeconfig of a peering user whole (a
// kubeconfig to save as it is, its warning as YAML comments), else what is
// shown.
func (h *handoffScreen) printed() string {
	if h.art.Kind != handshake.KindPeeringUser {
		return h.printable()
	}
	return "# peering-user kubeconfig for the admin of consumer " + h.s.peerID + " (user " + h.art.User + ")\n" +
		"# WARNING: it holds the user's private key: send it privately, then clear your terminal's scrollback\n" +
		strings.TrimRight(string(h.art.Data), "\n")
}

// printStatus is the status line after p.
func (h *handoffScreen) printStatus() (string, bool) {
	if h.art.Kind == handshake.KindPeeringUser {
		return "Printed below the wizard's screen WITH ITS PRIVATE KEY: it stays in your terminal's scrollback; clear it once sent.", true
	}
	return "Printed below the wizard's screen: it stays in your terminal's scrollback.", false
}

// offerPeeringUser is the line mode's menu after the nonce's hand-off: go
// on (receive the Tenant) or make a peering user instead.
func (h *handoffScreen) offerPeeringUser(u *lineUI) (tea.Msg, error) {
	actions := []action{
		{h.keys.Next, h.next},
		{h.keys.PeeringUser, func() tea.Cmd { return runOp(opGeneratePeeringUser(h.s)) }},
	}
	for {
		cmd, quit, err := u.offer("What next?", actions, true)
		if quit != nil || err != nil {
			return quit, err
		}
		if cmd != nil {
			return u.await(h, cmd)
		}
	}
}

// peeringUserSummary is the provider's summary once the peering user's
// kubeconfig was handed over.
func (m *summaryScreen) peeringUserSummary(b *strings.Builder, row func(k, v string), width int) {
	s, art := m.s, m.s.peeringUser
	b.WriteString(styleOK.Render(iconDone+" Peering user made") + "\n\n")
	row("Consumer:", s.peerID)
	row("Peering user:", art.User)
	if !art.NotAfter.IsZero() {
		row("Certificate expires:", expiry(art.NotAfter, s.now()))
	}
	b.WriteString("\n" + wrap("The consumer's admin runs the whole handshake alone, with the kubeconfig as --remote-kubeconfig "+
		"(in the wizard or `liqo-auth-tui authenticate`). On this cluster, `liqo-auth-tui delete peering-user --consumer-cluster-id "+
		s.peerID+"` revokes its rights.", max(width-2, 20)))
}

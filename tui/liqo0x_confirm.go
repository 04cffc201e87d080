package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

type liqo0xConfirmKeys struct {
	Go, Peer, Back key.Binding
}

func (k liqo0xConfirmKeys) ShortHelp() []key.Binding { return []key.Binding{k.Go, k.Peer, k.Back} }
func (k liqo0xConfirmKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Go, k.Peer, k.Back}}
}

// liqo0xConfirmScreen is asked before a Liqo 0.x consumer authenticates:
// when this tool is the consumer, what cannot be undone (one identity per
// cluster ID) and the TLS policy; when the consumer's Liqo 0.x does it,
// whether to enable outgoing peering too. art is the peer info received
// (manual mode), nil in automated mode.
type liqo0xConfirmScreen struct {
	s    *session
	art  *Artifact
	data []byte
	peer bool
	keys liqo0xConfirmKeys
}

func newLiqo0xConfirmScreen(s *session, art *Artifact, data []byte) *liqo0xConfirmScreen {
	c := &liqo0xConfirmScreen{s: s, art: art, data: data, peer: s.liqo0xOpts.Peer, keys: liqo0xConfirmKeys{
		Go:   key.NewBinding(key.WithKeys("enter", "y"), key.WithHelp("enter", "authenticate")),
		Peer: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "outgoing peering on/off")),
		Back: key.NewBinding(key.WithKeys("esc", "n"), key.WithHelp("esc", "back")),
	}}
	c.keys.Peer.SetEnabled(s.consumerRunsLiqo0x())
	return c
}

func (c *liqo0xConfirmScreen) Init() tea.Cmd     { return nil }
func (c *liqo0xConfirmScreen) Typing() bool      { return false }
func (c *liqo0xConfirmScreen) Keys() help.KeyMap { return c.keys }

func (c *liqo0xConfirmScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return c, pressed(k, c.actions())
	}
	return c, nil
}

// actions: authenticate, toggle outgoing peering (a 0.x consumer), back.
func (c *liqo0xConfirmScreen) actions() []action {
	return []action{
		{c.keys.Go, c.authenticate},
		{c.keys.Peer, func() tea.Cmd { c.peer = !c.peer; return nil }},
		{c.keys.Back, c.back},
	}
}

func (c *liqo0xConfirmScreen) options() Liqo0xOptions {
	return Liqo0xOptions{Peer: c.peer && c.s.consumerRunsLiqo0x()}
}

func (c *liqo0xConfirmScreen) authenticate() tea.Cmd {
	s := c.s
	s.liqo0xOpts = c.options()
	if c.art != nil {
		return runOp(opApplyPeerInfo(s, c.art, c.data, s.liqo0xOpts))
	}
	return runOp(opAuthenticateLiqo0x(s, s.liqo0xOpts))
}

// back: to detection, or to the receive screen with the peer info kept.
func (c *liqo0xConfirmScreen) back() tea.Cmd {
	if c.art != nil {
		return navigate(gotoReceiveMsg{kind: handshake.KindNonce, prefill: string(c.data)})
	}
	return navigate(gotoDetectMsg{})
}

func (c *liqo0xConfirmScreen) View(width, _ int) string {
	s := c.s
	inner := max(width-2, 20)
	var b strings.Builder
	b.WriteString(styleHeader.Render("Liqo 0.x token authentication") + "\n")
	if c.art != nil && c.art.Warning != "" {
		b.WriteString(warningBlock(c.art.Warning, width) + "\n")
	}
	b.WriteString("\n")
	consumer, provider := s.liqo0xIDs(c.art)
	row := func(k, v string) { kvRow(&b, width, k, v) }
	row("Consumer:", consumer)
	row("Provider:", provider)
	if c.art != nil && c.art.APIServer != "" {
		row("Auth URL:", c.art.APIServer)
	}
	b.WriteString("\n")
	if s.consumerRunsLiqo0x() {
		b.WriteString(wrapWords("The consumer runs Liqo 0.x: its own Liqo authenticates. The tool writes the token Secret remote-token-"+provider+
			" first, then the ForeignCluster (as `liqoctl peer out-of-band` does), and watches its AuthenticationStatus.", inner) + "\n\n")
		box := "[ ]"
		state := styleSubtle.Render("off: authentication only; peering stays liqoctl's")
		if c.peer {
			box, state = "[x]", styleWarn.Render("on: the consumer will also peer (outgoingPeeringEnabled: Yes)")
		}
		b.WriteString(styleKey.Render("p") + " " + box + " also enable outgoing peering  " + state + "\n")
	} else {
		b.WriteString(wrapWords("The consumer has no Liqo 0.x: this tool is its 0.x consumer. It sends the provider's token with a "+
			"certificate request (CN "+consumer+", O liqo.io) to the provider's liqo-auth server and stores the identity as a kubeconfig Secret.", inner) + "\n\n")
		b.WriteString(styleWarn.Render(wrapWords(iconWarn+" The provider issues ONE identity per cluster ID. A failed or repeated request "+
			"cannot be undone by the consumer: only the provider's admin can delete the certificate it stored for "+consumer+".", inner)) + "\n")
		b.WriteString(wrapWords(iconInfo+" TLS: the auth server's certificate is verified when it can be; when it cannot "+
			"(Liqo's default, a self-signed certificate), verification is skipped, as Liqo does. The summary says which.", inner) + "\n")
	}
	return b.String()
}

// lines prints the same text and offers the same keys.
func (c *liqo0xConfirmScreen) lines(u *lineUI) (tea.Msg, error) {
	u.println("")
	u.println(plain(c.View(lineWidth, 1000)))
	for {
		cmd, quit, err := u.offer("Authenticate?", c.actions(), true)
		if quit != nil || err != nil {
			return quit, err
		}
		if cmd == nil {
			if c.keys.Peer.Enabled() {
				// p toggled (or quit cancelled): say where it stands.
				u.println(c.peerLine())
			}
			continue
		}
		return u.await(c, cmd)
	}
}

func (c *liqo0xConfirmScreen) peerLine() string {
	if c.peer {
		return "Outgoing peering: on (outgoingPeeringEnabled: Yes)"
	}
	return "Outgoing peering: off (authentication only)"
}

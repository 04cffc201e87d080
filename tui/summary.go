package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

type summaryKeys struct {
	Details, Reverify, Done key.Binding
}

func (k summaryKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Done, k.Details, k.Reverify}
}
func (k summaryKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Done, k.Details, k.Reverify}}
}

// summaryScreen is the end: what was set up, and the verify result.
type summaryScreen struct {
	s       *session
	keys    summaryKeys
	details bool
}

func newSummaryScreen(s *session) *summaryScreen {
	k := summaryKeys{
		Details:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "allowed/denied list")),
		Reverify: key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "verify again")),
		Done:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "finish")),
	}
	if s.verification == nil {
		k.Details.SetEnabled(false)
	}
	if s.consumerRef() == nil || s.providerID() == "" {
		k.Reverify.SetEnabled(false)
	}
	return &summaryScreen{s: s, keys: k}
}

// consumerRef is the consumer cluster this session can reach (nil if none).
func (s *session) consumerRef() *ClusterRef {
	switch {
	case s.mode == ModeAutomated:
		c, _ := s.consumer()
		return &c
	case s.mode == ModeManual && s.selfRole() == handshake.RoleConsumer:
		c := s.self()
		return &c
	}
	return nil
}

func (s *session) providerID() string {
	switch {
	case s.auth != nil && s.auth.ProviderID != "":
		return s.auth.ProviderID
	case s.mode == ModeAutomated:
		_, p := s.provider()
		return idOf(p)
	case s.selfRole() == handshake.RoleConsumer:
		return s.peerID
	}
	return s.ownID()
}

// breakValue splits a value into lines of at most w cells: prose at
// spaces, a plain namespace/name after the slash, anything else at w.
func breakValue(v string, w int) []string {
	if w < 10 || lipgloss.Width(v) <= w {
		return []string{v}
	}
	if strings.Contains(v, " ") {
		return strings.Split(wrap(v, w), "\n")
	}
	if i := strings.LastIndex(v, "/"); i > 0 && ansi.Strip(v) == v && lipgloss.Width(v[:i+1]) <= w {
		return append([]string{v[:i+1]}, breakValue(v[i+1:], w)...)
	}
	return strings.Split(ansi.Hardwrap(v, w, true), "\n")
}

// certificateExpiry is the notAfter of the consumer's certificate: from the
// handshake just run, else from verify (zero if unknown).
func (s *session) certificateExpiry() time.Time {
	if s.auth != nil && !s.auth.CertificateExpiry.IsZero() {
		return s.auth.CertificateExpiry
	}
	if s.verification != nil {
		return s.verification.CertificateExpiry
	}
	return time.Time{}
}

// expiry shows a certificate's notAfter in UTC and how far away it is,
// warning when it is near (Liqo renews at 2/3 of the validity: a
// certificate this close to its end was not renewed) or past.
func expiry(notAfter, now time.Time) string {
	at := notAfter.UTC().Format("2006-01-02 15:04 MST")
	left := notAfter.Sub(now)
	days := int(math.Round(left.Hours() / 24)) // a fresh 1-year certificate: 365, not 364
	switch {
	case left <= 0:
		return styleErr.Render(at + " (expired: authenticate again to get a new certificate)")
	case left < 24*time.Hour:
		return styleWarn.Render(at + fmt.Sprintf(" (in %s)", left.Round(time.Minute)))
	case days < 30:
		return styleWarn.Render(at + fmt.Sprintf(" (in %d days: check that it gets renewed)", days))
	}
	return at + styleSubtle.Render(fmt.Sprintf(" (in %d days)", days))
}

func (m *summaryScreen) Init() tea.Cmd     { return nil }
func (m *summaryScreen) Typing() bool      { return false }
func (m *summaryScreen) Keys() help.KeyMap { return m.keys }

func (m *summaryScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return m, pressed(k, m.actions())
	}
	return m, nil
}

// actions: finish, the allowed/denied list, verify again.
func (m *summaryScreen) actions() []action {
	return []action{
		{m.keys.Done, func() tea.Cmd { return tea.Quit }},
		{m.keys.Details, func() tea.Cmd { m.details = !m.details; return nil }},
		{m.keys.Reverify, func() tea.Cmd {
			if c := m.s.consumerRef(); c != nil {
				return runOp(opVerify(m.s, *c, m.s.providerID()))
			}
			return nil
		}},
	}
}

// lines prints the summary with the allowed/denied list (so d is not
// offered), and offers to finish or verify again.
func (m *summaryScreen) lines(u *lineUI) (tea.Msg, error) {
	s := m.s
	m.details = true
	m.keys.Details.SetEnabled(false)
	u.println("")
	if u.printBanner() {
		u.println("")
	}
	banner := s.banner
	s.banner = "" // printed already
	u.println(plain(m.View(lineWidth, 1000)))
	s.banner = banner
	u.println("")
	for {
		cmd, _, err := u.offer("What next?", m.actions(), false)
		if err != nil {
			return nil, err
		}
		if nav, err := u.await(m, cmd); nav != nil || err != nil {
			return nav, err
		}
	}
}

func (m *summaryScreen) View(width, height int) string {
	s := m.s
	var b strings.Builder
	// Values are never cut (an admin copies the Secret's name): a long one
	// wraps under itself.
	const labelW = 23
	row := func(k, v string) {
		lines := breakValue(v, width-labelW)
		for i, l := range lines {
			l = strings.TrimRight(l, " ")
			if i == 0 {
				fmt.Fprintf(&b, "  %-20s %s\n", k, l)
			} else {
				b.WriteString(strings.Repeat(" ", labelW) + l + "\n")
			}
		}
	}
	if s.banner != "" {
		b.WriteString(styleSubtle.Render(truncate(s.banner, width)) + "\n\n")
	}
	if s.mode == ModeManual && s.selfRole() == handshake.RoleProvider && s.peeringUser != nil {
		m.peeringUserSummary(&b, row, width)
		return b.String()
	}
	if s.mode == ModeManual && s.selfRole() == handshake.RoleProvider {
		b.WriteString(styleOK.Render(iconDone+" Provider side done") + "\n\n")
		row("Consumer:", s.peerID)
		if s.tenant != nil && s.tenant.Fingerprint != "" {
			row("Consumer key:", styleFP.Render(s.tenant.Fingerprint))
		}
		if s.identity != nil {
			if s.identity.Fingerprint != "" {
				row("Provider CA:", styleFP.Render(s.identity.Fingerprint))
			}
			row("API server sent:", s.identity.APIServer)
			if !s.identity.NotAfter.IsZero() {
				row("Certificate expires:", expiry(s.identity.NotAfter, s.now()))
			}
		}
		b.WriteString("\n" + wrap("The consumer's admin applies the Identity (liqo-auth-tui apply identity -f identity.yaml) and proves the path with `liqo-auth-tui verify --remote-cluster-id "+s.ownID()+"`. The consumer cluster itself must reach the API server above.", max(width-2, 20)))
		return b.String()
	}
	b.WriteString(styleOK.Render(iconDone+" Authenticated") + "\n\n")
	if a := s.auth; a != nil {
		row("Consumer:", a.ConsumerID)
		row("Provider:", a.ProviderID)
		if a.Identity != "" {
			row("Identity:", a.Identity)
		}
		row("Kubeconfig Secret:", a.KubeconfigSecret)
		if a.ConsumerFingerprint != "" {
			row("Consumer key:", styleFP.Render(a.ConsumerFingerprint))
		}
	} else {
		row("Provider:", s.providerID())
	}
	if exp := s.certificateExpiry(); !exp.IsZero() {
		row("Certificate expires:", expiry(exp, s.now()))
	}
	b.WriteString("\n")
	if v := s.verification; v != nil {
		b.WriteString(styleBold.Render("verify") + styleSubtle.Render(" (the Secret's credentials, used from this workstation)") + "\n")
		row("API server:", v.Server)
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
	}
	if s.mode == ModeManual {
		b.WriteString("\n" + wrap(styleSubtle.Render("Manual mode spared this workstation from reaching both API servers; the consumer cluster itself must still reach the provider's API server. verify proved it from here."), max(width-2, 20)))
	}
	return b.String()
}

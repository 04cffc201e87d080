package tui

import (
	"fmt"
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
	Details, Reverify, Done, Request key.Binding
	// Scroll is shown in the help; Up and Down scroll.
	Scroll, Up, Down key.Binding
}

func (k summaryKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Done, k.Request, k.Reverify, k.Details, k.Scroll}
}
func (k summaryKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Done, k.Request, k.Reverify, k.Details, k.Scroll}}
}

// slicesListedMsg carries the consumer's ResourceSlices with the provider.
type slicesListedMsg struct {
	slices []SliceInfo
	err    error
}

// summaryScreen is the end: what was set up, the consumer's slices, verify's result.
type summaryScreen struct {
	s       *session
	listing SliceLister
	keys    summaryKeys
	details bool
	// The consumer's ResourceSlices with the provider, once listed.
	slices       []SliceInfo
	slicesErr    error
	slicesListed bool
	// offset scrolls a summary taller than the window down by that many
	// lines; maxOffset is how far it can go at the last size drawn.
	offset, maxOffset int
	// A manual provider's summary serves it (serve.go): what serves it and
	// the consumer's slices there, or why it is not served from here.
	sv       *serving
	served   *ProviderSlices
	serveErr error
	// clockGen is this summary's ticks: "Last renewal" ages (clock.go).
	clockGen int
}

func newSummaryScreen(s *session) *summaryScreen {
	k := summaryKeys{
		Details:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "allowed/denied list")),
		Reverify: key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "verify again")),
		Done:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "finish")),
		Request:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "request resources")),
		Scroll:   key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "scroll")),
		Up:       key.NewBinding(key.WithKeys("up", "k")),
		Down:     key.NewBinding(key.WithKeys("down", "j")),
	}
	if s.verification == nil {
		k.Details.SetEnabled(false)
	}
	if s.consumerRef() == nil || s.providerID() == "" || s.liqo0xResult != nil || s.peerInfo != nil {
		// Liqo 0.x has no ResourceSlices, and verify reads v1 Identities.
		// Verify and ResourceSlices need the consumer's cluster.
		k.Reverify.SetEnabled(false)
		k.Request.SetEnabled(false)
	}
	return &summaryScreen{s: s, listing: s.backend, keys: k}
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
// Verify reads it after the handshake, so after a renewal (v) it is the
// newer one.
func (s *session) certificateExpiry() time.Time {
	if s.verification != nil && !s.verification.CertificateNotAfter.IsZero() {
		return s.verification.CertificateNotAfter
	}
	if s.auth != nil {
		return s.auth.CertificateExpiry
	}
	return time.Time{}
}

// renewal shows when the consumer's certificate was last renewed: never,
// or the time in UTC and how long ago (redrawn as it ages: clock.go).
func renewal(last, now time.Time) string {
	if last.IsZero() {
		return "never" + styleSubtle.Render(" (the certificate is renewed at 2/3 of its validity)")
	}
	return last.UTC().Format("2006-01-02 15:04 MST") + styleSubtle.Render(" ("+handshake.Ago(last, now)+")")
}

// expiry shows a certificate's notAfter in UTC and how far away it is, in
// verify's words (handshake.ExpiresIn), warning when it is near (Liqo
// renews at 2/3 of the validity: a certificate this close to its end was
// not renewed) or past.
func expiry(notAfter, now time.Time) string {
	at, rel := notAfter.UTC().Format("2006-01-02 15:04 MST"), " ("+handshake.ExpiresIn(notAfter, now)
	switch left := notAfter.Sub(now); {
	case left <= 0:
		return styleErr.Render(at + rel + ": authenticate again to get a new certificate)")
	case left < 30*24*time.Hour:
		return styleWarn.Render(at + rel + ": check that it gets renewed)")
	}
	return at + styleSubtle.Render(rel+")")
}

// Init lists the consumer's ResourceSlices with the provider, when this
// workstation reaches the consumer; a manual provider's summary serves the
// provider meanwhile (serve.go).
func (m *summaryScreen) Init() tea.Cmd {
	gen, tick := m.s.clock()
	m.clockGen = gen
	if !m.s.servesSlices() {
		return tea.Batch(tick, m.listSlices())
	}
	m.sv = m.s.serveSlices(nil)
	m.served, m.serveErr = m.sv.state()
	if m.sv.ended() {
		return tick
	}
	return tea.Batch(tick, m.sv.listen())
}

// listSlices lists the consumer's ResourceSlices with the provider.
func (m *summaryScreen) listSlices() tea.Cmd {
	c := m.s.consumerRef()
	if c == nil || !m.keys.Request.Enabled() {
		return nil
	}
	s, listing, consumer, pid := m.s, m.listing, *c, m.s.providerID()
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		list, err := listing.ResourceSlices(ctx, consumer, pid)
		return slicesListedMsg{slices: list, err: err}
	}
}

func (m *summaryScreen) Typing() bool { return false }

func (m *summaryScreen) Keys() help.KeyMap {
	k := m.keys
	k.Scroll.SetEnabled(m.maxOffset > 0)
	return k
}

func (m *summaryScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case slicesListedMsg:
		m.slices, m.slicesErr, m.slicesListed = msg.slices, msg.err, true
	case servedMsg:
		m.served = &msg.ps
		return m, m.sv.listen()
	case serveEndedMsg:
		m.serveErr = msg.err
	case clockTickMsg:
		if msg.gen == m.clockGen {
			return m, m.s.clockTick(msg.gen)
		}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.keys.Up):
			m.offset = max(min(m.offset, m.maxOffset)-1, 0)
			return m, nil
		case key.Matches(msg, m.keys.Down):
			m.offset = min(m.offset+1, m.maxOffset)
			return m, nil
		}
		return m, pressed(msg, m.actions())
	}
	return m, nil
}

// actions: finish, request resources, the allowed/denied list, verify
// again.
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
		{m.keys.Request, func() tea.Cmd {
			taken := make([]string, 0, len(m.slices))
			for _, sl := range m.slices {
				taken = append(taken, sl.Name)
			}
			return navigate(gotoSlicesMsg{taken: taken})
		}},
	}
}

// lines prints the summary with the allowed/denied list (so d is not
// offered), and offers to finish or verify again.
func (m *summaryScreen) lines(u *lineUI) (tea.Msg, error) {
	s := m.s
	m.details = true
	m.keys.Details.SetEnabled(false)
	if s.servesSlices() {
		m.serveLines(u)
	} else if nav, err := u.await(m, m.listSlices()); nav != nil || err != nil {
		return nav, err
	}
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

// View shows the summary; one taller than height scrolls (↑/↓), with a
// last line that says what is hidden.
func (m *summaryScreen) View(width, height int) string {
	content := m.content(width)
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	if len(lines) <= height || height < 2 {
		m.maxOffset = 0
		return content
	}
	m.maxOffset = len(lines) - (height - 1)
	off := min(m.offset, m.maxOffset)
	marker := fmt.Sprintf("… %d more line(s) below: ↓ scrolls", m.maxOffset-off)
	if off == m.maxOffset {
		marker = fmt.Sprintf("… %d line(s) above: ↑ scrolls", off)
	}
	return strings.Join(lines[off:off+height-1], "\n") + "\n" + styleSubtle.Render(truncate(marker, width))
}

// labelW is the width of a summary row's label column.
const labelW = 23

// kvRow writes a row of label and value. Values are never cut (an admin
// copies the Secret's name): a long one wraps under itself.
func kvRow(b *strings.Builder, width int, k, v string) {
	lines := breakValue(v, width-labelW)
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if i == 0 {
			fmt.Fprintf(b, "  %-20s %s\n", k, l)
		} else {
			b.WriteString(strings.Repeat(" ", labelW) + l + "\n")
		}
	}
}

func (m *summaryScreen) content(width int) string {
	s := m.s
	var b strings.Builder
	row := func(k, v string) { kvRow(&b, width, k, v) }
	if s.banner != "" {
		b.WriteString(styleSubtle.Render(truncate(s.banner, width)) + "\n\n")
	}
	if s.liqo0xResult != nil || s.peerInfo != nil {
		m.liqo0xSummary(&b, row, width)
		return b.String()
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
		b.WriteString("\n" + wrap("The consumer's admin applies the Identity (liqo-auth-tui apply identity -f identity.yaml) and proves the path with `liqo-auth-tui verify --remote-cluster-id "+s.ownID()+"`. The consumer cluster itself must reach the API server above.", max(width-2, 20)) + "\n")
		m.servedSection(&b, width)
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
	// Verify read the Identity: the renewal is known along with the expiry.
	if v := s.verification; v != nil && !v.CertificateNotAfter.IsZero() {
		row("Last renewal:", renewal(v.LastRenewal, s.now()))
	}
	b.WriteString("\n")
	m.slicesSection(&b, row, width)
	if v := s.verification; v != nil {
		if !m.verifySection(&b, row, v) {
			return b.String() // not verified from here: "verify proved it" would not hold
		}
	}
	if s.mode == ModeManual {
		b.WriteString("\n" + wrap(styleSubtle.Render("Manual mode spared this workstation from reaching both API servers; the consumer cluster itself must still reach the provider's API server. verify proved it from here."), max(width-2, 20)))
	}
	return b.String()
}

// slicesSection lists the consumer's ResourceSlices with the provider (a
// table, or one block each when the table is wider than the window), and
// offers to request resources. Nothing when the consumer is out of reach.
func (m *summaryScreen) slicesSection(b *strings.Builder, row func(k, v string), width int) {
	if !m.keys.Request.Enabled() {
		return
	}
	b.WriteString(styleBold.Render("resources") + styleSubtle.Render(" (the consumer's ResourceSlices with this provider)") + "\n")
	switch {
	case !m.slicesListed:
		b.WriteString("  " + styleSubtle.Render("reading the ResourceSlices…") + "\n")
	case m.slicesErr != nil:
		reason, _ := explain(m.slicesErr)
		b.WriteString(styleWarn.Render(wrap(iconWarn+" could not list them: "+oneLine(reason), max(width-2, 20))) + "\n")
	case len(m.slices) == 0:
		b.WriteString("  none yet" + styleSubtle.Render(": r requests resources from the provider (optional)") + "\n")
	default:
		if table := m.slicesTable(width); table != "" {
			b.WriteString(table)
		} else {
			for i, sl := range m.slices {
				if i > 0 {
					b.WriteString("\n")
				}
				row("ResourceSlice:", sl.Name)
				row("Authentication:", sliceState(sl.Authentication))
				row("Resources:", sliceState(sl.Resources))
				row("Granted:", formatResources(sl.Granted, "-"))
				if !sl.NotAfter.IsZero() {
					row("Certificate expires:", expiry(sl.NotAfter, m.s.now()))
				}
			}
		}
		for _, sl := range m.slices {
			if sl.Message != "" && (sl.Authentication == sliceDenied || sl.Resources == sliceDenied) {
				b.WriteString(styleErr.Render(wrap("  "+iconFailed+" "+sl.Name+": "+oneLine(sl.Message), max(width-2, 20))) + "\n")
			}
		}
		b.WriteString("  " + styleSubtle.Render("r requests more resources (optional)") + "\n")
	}
	b.WriteString("\n")
}

// slicesTable is one line per slice: its name, the provider's answers,
// what it granted and when the slice's certificate expires ("" when the
// table is wider than width).
func (m *summaryScreen) slicesTable(width int) string {
	type cell struct{ text, shown string }
	plainCell := func(v string) cell { return cell{v, v} }
	state := func(v string) cell { return cell{orDefault(v, "pending"), sliceState(v)} }
	granted := func(sl SliceInfo, res string) cell { return plainCell(orDefault(sl.Granted[res], "-")) }
	rows := [][]cell{{plainCell("NAME"), plainCell("AUTHENTICATION"), plainCell("RESOURCES"), plainCell("CPU"), plainCell("MEMORY"),
		plainCell("PODS"), plainCell("CERTIFICATE EXPIRES")}}
	for _, sl := range m.slices {
		exp := cell{"-", "-"}
		if !sl.NotAfter.IsZero() {
			exp.text, exp.shown = expiryDate(sl.NotAfter, m.s.now())
		}
		rows = append(rows, []cell{plainCell(sl.Name), state(sl.Authentication), state(sl.Resources),
			granted(sl, "cpu"), granted(sl, "memory"), granted(sl, "pods"), exp})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], lipgloss.Width(c.text))
		}
	}
	total := 2 + 2*(len(widths)-1)
	for _, w := range widths {
		total += w
	}
	if total > width {
		return ""
	}
	var b strings.Builder
	for n, r := range rows {
		line := " "
		for i, c := range r {
			shown := c.shown
			if n == 0 {
				shown = styleSubtle.Render(c.text)
			}
			line += " " + shown
			if i < len(r)-1 {
				line += strings.Repeat(" ", widths[i]-lipgloss.Width(c.text)+1)
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// expiryDate is a certificate's notAfter day, and the same styled as a
// warning like expiry's when it is near or past.
func expiryDate(notAfter, now time.Time) (text, shown string) {
	text = notAfter.UTC().Format("2006-01-02")
	switch left := notAfter.Sub(now); {
	case left <= 0:
		text += " (expired)"
		return text, styleErr.Render(text)
	case left < 30*24*time.Hour:
		return text, styleWarn.Render(text)
	}
	return text, text
}

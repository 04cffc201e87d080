package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// screen is one step of the wizard: a small model with its own keys.
type screen interface {
	Init() tea.Cmd
	Update(msg tea.Msg) (screen, tea.Cmd)
	// View renders the body in width×height.
	View(width, height int) string
	// Keys is the screen's keymap, shown in the help bar.
	Keys() help.KeyMap
	// Typing tells whether keys go to a text field (q does not quit then).
	Typing() bool
	// lines runs the screen as plain line prompts (accessible mode): it
	// asks and prints through u and returns the navigation message that
	// leaves the screen.
	lines(u *lineUI) (tea.Msg, error)
}

// Navigation messages: screens ask the wizard to move on with these.
type (
	gotoDetectMsg  struct{}
	gotoPeerMsg    struct{}
	gotoRunMsg     struct{ op operation }
	gotoHandoffMsg struct {
		art *Artifact
		// then, when set, is where enter goes (else: after the kind).
		then tea.Cmd
	}
	gotoReceiveMsg struct {
		kind handshake.ArtifactKind
		// prefill is put back in the field (back from a confirmation).
		prefill string
	}
	gotoSummaryMsg struct{}
	gotoErrorMsg   struct {
		err   error
		retry tea.Cmd // navigation that retries what failed
		// reissue, when set, retries a Liqo 0.x authentication refused as
		// already issued after deleting the provider's identity (liqo0x.go).
		reissue tea.Cmd
	}
	// setFieldsMsg carries what the start screen collected.
	startDoneMsg struct {
		local, remote ClusterRef
		role          handshake.Role
	}
)

func navigate(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

type globalKeys struct {
	Quit      key.Binding
	ForceQuit key.Binding
	Help      key.Binding
	Yes, No   key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Help:      key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?", "more keys")),
		Yes:       key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "quit")),
		No:        key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "stay")),
	}
}

// Model is the wizard: the shared session, the current screen, and the
// quit confirmation on top of it.
type Model struct {
	s           *session
	cur         screen
	keys        globalKeys
	help        help.Model
	width       int
	height      int
	confirmQuit bool
	aborted     bool
	inline      bool // left the alternate screen (after p: print)
}

// New builds the wizard model (Run starts it in a program).
func New(ctx context.Context, o Options) *Model {
	s := newSession(ctx, o)
	m := &Model{s: s, keys: newGlobalKeys(), help: newHelp(), width: 80, height: 24}
	m.cur = newStartScreen(s)
	m.inline = s.accessible()
	return m
}

// Init starts the first screen.
func (m *Model) Init() tea.Cmd { return guard(m.cur.Init()) }

// Update handles global keys, sizes and navigation, and passes the rest to
// the current screen. A panic, here or in the commands it returns (which
// call the backend), ends on the error screen rather than the program.
func (m *Model) Update(msg tea.Msg) (_ tea.Model, cmd tea.Cmd) {
	defer func() {
		if v := recover(); v != nil {
			if r, ok := m.cur.(*runScreen); ok {
				r.cancel()
			}
			m.confirmQuit = false
			m.cur, cmd = newErrorScreen(m.s, recovered("the wizard", v), nil), nil
		}
	}()
	_, cmd = m.update(msg)
	return m, guard(cmd)
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		var cmd tea.Cmd
		m.cur, cmd = m.cur.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		if m.confirmQuit {
			switch {
			case key.Matches(msg, m.keys.Yes), key.Matches(msg, m.keys.ForceQuit):
				return m.quit(true)
			case key.Matches(msg, m.keys.No):
				m.confirmQuit = false
			}
			return m, nil
		}
		switch {
		case key.Matches(msg, m.keys.ForceQuit),
			key.Matches(msg, m.keys.Quit) && !m.cur.Typing():
			if m.midFlow() {
				m.confirmQuit = true
				return m, nil
			}
			// Leaving the overview is no handshake left half done.
			_, overview := m.cur.(*overviewScreen)
			return m.quit(m.s.interrupts() && !overview)
		case m.helpPressed(msg):
			m.help.ShowAll = !m.help.ShowAll
			return m, nil
		}
	case leaveAltScreenMsg:
		m.inline = true
		return m, msg.then
	}
	if sc := m.s.screenFor(msg); sc != nil {
		return m.show(sc)
	}
	var cmd tea.Cmd
	m.cur, cmd = m.cur.Update(msg)
	return m, cmd
}

// navigation is a message that moves the wizard to another screen: the
// message itself builds the screen it leads to. The full-screen wizard
// (screenFor) and the line mode (isNavigation) both know navigation by this
// one method, so there is no list of messages to keep equal.
type navigation interface {
	screenIn(s *session) screen
}

// screenFor is the screen a navigation message leads to, once the session
// took what the message carries; nil for any other message.
func (s *session) screenFor(msg tea.Msg) screen {
	if nav, ok := msg.(navigation); ok {
		return nav.screenIn(s)
	}
	return nil
}

func (msg startDoneMsg) screenIn(s *session) screen {
	s.local, s.remote = msg.local, msg.remote
	if msg.role != handshake.RoleUnknown {
		s.localRole, s.roleGiven = msg.role, true
	}
	return newDetectScreen(s)
}

func (gotoDetectMsg) screenIn(s *session) screen { return newDetectScreen(s) }

func (editStartMsg) screenIn(s *session) screen {
	st := newStartScreen(s)
	st.forceAsk, st.localCtx, st.remoteCtx = true, "", ""
	s.mode = ModeUndecided
	return st
}

func (gotoPeerMsg) screenIn(s *session) screen { return newPeerScreen(s) }

func (msg gotoRunMsg) screenIn(s *session) screen {
	if sc := s.advertiseFirst(msg); sc != nil {
		return sc
	}
	return newRunScreen(s, msg.op)
}

func (msg gotoHandoffMsg) screenIn(s *session) screen {
	h := newHandoffScreen(s, msg.art)
	h.then = msg.then
	return h
}

func (msg gotoReceiveMsg) screenIn(s *session) screen {
	r := newReceiveScreen(s, msg.kind)
	r.prefill = msg.prefill
	return r
}

func (msg gotoLiqo0xConfirmMsg) screenIn(s *session) screen {
	return newLiqo0xConfirmScreen(s, msg.art, msg.data)
}

func (gotoSummaryMsg) screenIn(s *session) screen {
	s.done = true
	return newSummaryScreen(s)
}

func (msg gotoSlicesMsg) screenIn(s *session) screen {
	return newSlicesScreen(s, msg.result, msg.taken)
}

func (gotoOverviewMsg) screenIn(s *session) screen { return newOverviewScreen(s) }

func (newPeeringMsg) screenIn(s *session) screen {
	s.sliceTarget = nil
	d := newDetectScreen(s)
	d.autoNext = true
	return d
}

func (msg gotoErrorMsg) screenIn(s *session) screen {
	e := newErrorScreen(s, msg.err, msg.retry)
	e.reissue = msg.reissue
	return e
}

func (m *Model) show(sc screen) (tea.Model, tea.Cmd) {
	closeScreen(m.cur)
	m.cur = sc
	m.help.ShowAll = false
	size := tea.WindowSizeMsg{Width: m.width, Height: m.height} // read here: the command runs on another goroutine
	return m, tea.Batch(sc.Init(), func() tea.Msg { return size })
}

// midFlow tells whether quitting now leaves the handshake half done.
func (m *Model) midFlow() bool {
	switch m.cur.(type) {
	case *startScreen, *summaryScreen, *overviewScreen:
		return false
	}
	return m.s.interrupts()
}

// closeScreen stops what a screen left behind runs for it (the overview's
// watch).
func closeScreen(sc screen) {
	if c, ok := sc.(interface{ close() }); ok {
		c.close()
	}
}

func (m *Model) quit(aborted bool) (tea.Model, tea.Cmd) {
	m.aborted = aborted
	if r, ok := m.cur.(*runScreen); ok {
		r.cancel()
	}
	closeScreen(m.cur)
	return m, tea.Quit
}

// View renders header, body, status and help bar in the window.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = !m.inline
	v.WindowTitle = "liqo-auth-tui"
	return v
}

func (m *Model) render() string {
	w, h := max(m.width, 20), max(m.height, 8)
	header := m.header(w)
	m.help.SetWidth(w)
	footer := m.footer(w)
	if m.confirmQuit {
		footer = m.help.ShortHelpView([]key.Binding{m.keys.Yes, m.keys.No})
	}
	bodyH := h - lipgloss.Height(header) - lipgloss.Height(footer) - 1
	body := m.cur.View(w, max(bodyH, 1))
	if m.confirmQuit {
		body = lipgloss.Place(w, max(bodyH, 1), lipgloss.Center, lipgloss.Center, m.quitModal(w))
	}
	body = fitLines(body, w, max(bodyH, 1))
	return header + "\n" + body + "\n" + footer
}

// footer is the help bar: the screen's keys, cut to fit, then quit and
// help, which are always shown.
func (m *Model) footer(w int) string {
	if m.help.ShowAll {
		return m.fullHelpView()
	}
	h := m.help
	h.SetWidth(0)
	global := h.ShortHelpView(m.globalHelp())
	avail := w - lipgloss.Width(global) - 3
	var keys []key.Binding
	for _, k := range m.cur.Keys().ShortHelp() {
		if k.Enabled() {
			keys = append(keys, k)
		}
	}
	local := h.ShortHelpView(keys)
	// Drop the last keys until the line fits (they stay in the full help).
	for len(keys) > 0 && lipgloss.Width(local) > avail {
		keys = keys[:len(keys)-1]
		local = h.ShortHelpView(keys)
		if len(keys) > 0 {
			local += " " + h.Styles.Ellipsis.Render(h.Ellipsis)
		}
	}
	if local == "" {
		return global
	}
	return local + h.Styles.ShortSeparator.Render(h.ShortSeparator) + global
}

func (m *Model) globalHelp() []key.Binding {
	q := m.keys.Quit
	if m.cur.Typing() {
		q = m.keys.ForceQuit
	}
	return []key.Binding{q, m.helpKey()}
}

func (m *Model) quitModal(w int) string {
	msg := styleBold.Render("Quit before the handshake is finished?") + "\n\n" +
		"What is done so far stays on the clusters, and every step is\n" +
		"re-runnable: run liqo-auth-tui again to resume where it stopped.\n\n" +
		styleKey.Render("y") + " quit   " + styleKey.Render("n") + " stay"
	return styleModal.MaxWidth(w).Render(msg)
}

func (m *Model) header(w int) string {
	s := m.s
	title := styleTitle.Render("liqo-auth-tui") + styleSubtle.Render(" · Liqo authentication")
	if mode := s.modeLabel(); mode != "" {
		title += styleSubtle.Render(" · ") + styleBold.Render(mode)
	}
	var parts []string
	describe := func(label string, ref ClusterRef, info *ClusterInfo, role handshake.Role) string {
		name := ref.Context
		if info != nil && info.Context != "" {
			name = info.Context
		}
		if name == "" {
			name = ref.Describe()
		}
		out := label + " " + name
		if info != nil && info.ClusterID != "" {
			out += " (" + info.ClusterID + ")"
		}
		if role != handshake.RoleUnknown {
			out += " → " + string(role)
		}
		return out
	}
	if _, ok := m.cur.(*startScreen); !ok {
		if s.mode != ModeManual || s.manualSide != handshake.Remote {
			parts = append(parts, describe("local:", s.local, s.localInfo, s.localRole))
		}
		if s.remote.Given() && (s.mode != ModeManual || s.manualSide == handshake.Remote) {
			parts = append(parts, describe("remote:", s.remote, s.remoteInfo, s.localRole.Other()))
		}
	}
	line2 := styleSubtle.Render(truncate(strings.Join(parts, "   "), w))
	if len(parts) == 0 {
		return truncate(title, w)
	}
	return truncate(title, w) + "\n" + line2
}

// Run starts the wizard on the terminal and returns when it ends: nil once
// the handshake is done (or the admin leaves the summary, or the overview
// of the peerings), ErrAborted when quit before. With ACCESSIBLE=1 or TERM=dumb it runs as plain line prompts
// and progress lines instead (the screens' lines methods, accessible.go),
// with the same flows.
func Run(ctx context.Context, o Options) error {
	if o.Backend == nil {
		return errors.New("tui: no backend")
	}
	m := New(ctx, o)
	s := m.s
	// The provider's summary may serve it (serve.go): until it let go.
	defer s.stopServing()
	if s.accessible() {
		// Plain line prompts and progress lines, nothing redrawn.
		in, out := o.In, o.Out
		if in == nil {
			in = os.Stdin
		}
		if out == nil {
			out = os.Stdout
		}
		return runAccessible(ctx, s, in, out)
	}
	var opts []tea.ProgramOption
	opts = append(opts, tea.WithContext(ctx), tea.WithEnvironment(s.opts.Environ))
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	if s.noColor() {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	final, err := tea.NewProgram(m, opts...).Run()
	if fm, ok := final.(*Model); ok && fm != nil {
		m = fm
	}
	switch {
	case errors.Is(err, tea.ErrInterrupted), errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return ErrAborted
	case err != nil:
		return fmt.Errorf("wizard: %w", err)
	case m.aborted:
		return ErrAborted
	}
	return nil
}

// fitLines cuts s to at most h lines of at most w cells.
func fitLines(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = truncate(l, w)
	}
	return strings.Join(lines, "\n")
}

func truncate(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, max(w, 1), "…")
}

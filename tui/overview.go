package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The overview (day two): when the cluster already has peerings, the first
// screen after detection lists them, one row per remote and role, kept up
// to date from watches (Backend.WatchOverview), not a timer. The admin
// picks a row and acts on it (overview_actions.go) or starts a new peering
// (n). Only the rows in the window are rendered, so that a provider with
// 1,000 consumers scrolls as fast as one with three.

type (
	// gotoOverviewMsg shows the overview of the cluster(s) detected.
	gotoOverviewMsg struct{}
	// newPeeringMsg leaves the overview for a new handshake: detection
	// again, which goes on by itself when nothing needs the admin.
	newPeeringMsg struct{}
	// overviewMsg is a new overview from the watch of generation gen; the
	// next comes from ch. closed: the watch ended; err: it never started.
	overviewMsg struct {
		gen    int
		rows   []OverviewRow
		ch     <-chan []OverviewRow
		closed bool
		err    error
	}
)

// overviewGen tells the watches apart: a message of a watch that ended
// (an overview left, then shown again) changes nothing.
var overviewGen int

type overviewKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Actions, New key.Binding
	// The action menu (overview_actions.go, overview_repair.go).
	Authenticate, Verify, Diagnose, Fix, Cordon, Uncordon, Drain, Activate, RequestSlice, DeleteSlice, Unauthenticate, Back key.Binding
	// The confirmation, and the slice to delete.
	Yes, No, Pick key.Binding
}

func newOverviewKeys() overviewKeys {
	return overviewKeys{
		Up:             key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:           key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:         key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:       key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "page down")),
		Top:            key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "first")),
		Bottom:         key.NewBinding(key.WithKeys("end", "G", "shift+g"), key.WithHelp("G", "last")),
		Actions:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "actions")),
		New:            key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new peering")),
		Authenticate:   key.NewBinding(key.WithKeys("A", "shift+a"), key.WithHelp("A", "authenticate: this wizard runs the handshake on both clusters")),
		Verify:         key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "verify the consumer's credentials on the provider")),
		Diagnose:       key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diagnose (doctor's checks)")),
		Fix:            key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fix: apply the repair doctor shows (doctor --fix)")),
		Cordon:         key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cordon the Tenant: no new resources")),
		Uncordon:       key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "uncordon the Tenant")),
		Drain:          key.NewBinding(key.WithKeys("D", "shift+d"), key.WithHelp("D", "drain the Tenant: its permissions and slices go")),
		Activate:       key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "activate the drained Tenant")),
		RequestSlice:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "request resources (a ResourceSlice)")),
		DeleteSlice:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "delete a ResourceSlice")),
		Unauthenticate: key.NewBinding(key.WithKeys("U", "shift+u"), key.WithHelp("U", "unauthenticate the pair")),
		Back:           key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the list")),
		Yes:            key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "confirm")),
		No:             key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "cancel")),
		Pick:           key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "delete this one")),
	}
}

func (k overviewKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Yes, k.No, k.Pick, k.Actions, k.New, k.Authenticate, k.Verify, k.Diagnose, k.Fix, k.Cordon, k.Uncordon, k.Drain, k.Activate,
		k.RequestSlice, k.DeleteSlice, k.Unauthenticate, k.Back, k.Up, k.Down}
}

func (k overviewKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Yes, k.No, k.Pick, k.Actions, k.New, k.Back},
		{k.Authenticate, k.Verify, k.Diagnose, k.Fix, k.Cordon, k.Uncordon, k.Drain, k.Activate, k.RequestSlice, k.DeleteSlice, k.Unauthenticate},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
}

// overviewScreen lists the peerings and acts on the one selected.
type overviewScreen struct {
	s *session
	// reader lists and watches the peerings, doctor diagnoses and repairs
	// one, acts acts on it.
	reader OverviewReader
	doctor PeeringDoctor
	acts   PeeringActions
	keys   overviewKeys
	// listed is the cluster whose peerings are listed; other, in automated
	// mode, the remote read with it (only their peerings with each other).
	listed, other       *ClusterRef
	listedID, otherID   string
	rows                []OverviewRow
	cols                overviewColumns
	attention           int // rows whose verdict is not ok
	cursor, offset, win int
	gen                 int
	cancel              context.CancelFunc
	// watchErr: the watch could not start (the rows are the detect
	// screen's list).
	watchErr error
	act      overviewAction
	// diag is the last diagnosis shown, whose repairs f applies
	// (overview_repair.go).
	diag *diagnosis
}

func newOverviewScreen(s *session) *overviewScreen {
	o := &overviewScreen{s: s, reader: s.backend, doctor: s.backend, acts: s.backend, keys: newOverviewKeys(), cancel: func() {}, win: 10}
	o.listed, o.listedID, o.other, o.otherID = s.overviewClusters()
	o.setRows(s.peerings)
	return o
}

// overviewClusters are the cluster whose peerings the overview lists and,
// in automated mode with a remote that has an ID, the remote read with it.
func (s *session) overviewClusters() (listed *ClusterRef, listedID string, other *ClusterRef, otherID string) {
	if s.mode == ModeAutomated {
		l := s.local
		if s.remoteInfo != nil && s.remoteInfo.ClusterID != "" {
			r := s.remote
			return &l, idOf(s.localInfo), &r, s.remoteInfo.ClusterID
		}
		return &l, idOf(s.localInfo), nil, ""
	}
	self := s.self()
	return &self, s.ownID(), nil, ""
}

// Init starts the watch: each overview it sends becomes an overviewMsg.
func (o *overviewScreen) Init() tea.Cmd {
	overviewGen++
	o.gen = overviewGen
	ctx, cancel := context.WithCancel(o.s.ctx)
	o.cancel = cancel
	reader, listed, other, gen := o.reader, *o.listed, o.other, o.gen
	return func() tea.Msg {
		ch, err := reader.WatchOverview(ctx, listed, other)
		if err != nil {
			return overviewMsg{gen: gen, err: err}
		}
		return nextOverview(gen, ch)()
	}
}

// nextOverview waits for the watch's next overview (subscribed again after
// each).
func nextOverview(gen int, ch <-chan []OverviewRow) tea.Cmd {
	return func() tea.Msg {
		rows, ok := <-ch
		return overviewMsg{gen: gen, rows: rows, ch: ch, closed: !ok}
	}
}

// close ends the watch (the wizard leaves the screen).
func (o *overviewScreen) close() { o.cancel() }

func (o *overviewScreen) Typing() bool { return false }

func (o *overviewScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case overviewMsg:
		if msg.gen != o.gen {
			return o, nil
		}
		switch {
		case msg.err != nil:
			o.watchErr = msg.err
			return o, nil
		case msg.closed: // the wizard ends
			return o, nil
		}
		o.setRows(msg.rows)
		o.s.peerings = msg.rows // what the overview shows first when back
		return o, nextOverview(o.gen, msg.ch)
	case actionDoneMsg:
		return o, o.done(msg)
	case tea.KeyPressMsg:
		return o, pressed(msg, o.actions())
	}
	return o, nil
}

// setRows shows a new overview, the cursor staying on the same peering.
func (o *overviewScreen) setRows(rows []OverviewRow) {
	var selected OverviewRow
	had := o.cursor < len(o.rows)
	if had {
		selected = o.rows[o.cursor]
	}
	o.rows = rows
	o.cols = columnsOf(rows)
	o.attention = 0
	for i := range rows {
		if rows[i].Health.Verdict.NeedsAttention() {
			o.attention++
		}
	}
	if had {
		for i := range rows {
			if rows[i].RemoteID == selected.RemoteID && rows[i].Role == selected.Role && rows[i].Route() == selected.Route() {
				o.cursor = i
				return
			}
		}
	}
	o.cursor = min(o.cursor, max(len(rows)-1, 0))
}

// move puts the cursor by rows (clamped) and the window around it.
func (o *overviewScreen) move(by int) {
	o.cursor = max(min(o.cursor+by, len(o.rows)-1), 0)
	o.scroll()
}

// step moves the cursor of the slice picker, else of the rows.
func (o *overviewScreen) step(by int) {
	if o.act.mode != actPickSlice {
		o.move(by)
		return
	}
	if t, ok := o.target(); ok {
		o.act.slice = max(min(o.act.slice+by, len(t.row.Slices)-1), 0)
	}
}

// scroll keeps the cursor inside the window of o.win rows.
func (o *overviewScreen) scroll() {
	switch {
	case o.cursor < o.offset:
		o.offset = o.cursor
	case o.cursor >= o.offset+o.win:
		o.offset = o.cursor - o.win + 1
	}
	o.offset = max(min(o.offset, len(o.rows)-o.win), 0)
}

// selected is the row under the cursor (false: no rows).
func (o *overviewScreen) selected() (OverviewRow, bool) {
	if o.cursor >= len(o.rows) {
		return OverviewRow{}, false
	}
	return o.rows[o.cursor], true
}

func (o *overviewScreen) Keys() help.KeyMap {
	k := o.keys
	a := &o.act
	list := a.mode == actList && a.busy == ""
	_, has := o.selected()
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom} {
		b.SetEnabled(list && len(o.rows) > 1)
	}
	k.Actions.SetEnabled(list && has)
	k.New.SetEnabled(list)
	o.menuKeys(&k)
	return k
}

// actions are the keys of the list, the menu and the confirmation, in the
// help's order: each enabled only where it applies (Keys).
func (o *overviewScreen) actions() []action {
	k := o.Keys().(overviewKeys)
	page := func() int { return max(o.win-1, 1) }
	return append([]action{
		{k.Up, func() tea.Cmd { o.step(-1); return nil }},
		{k.Down, func() tea.Cmd { o.step(1); return nil }},
		{k.PageUp, func() tea.Cmd { o.move(-page()); return nil }},
		{k.PageDown, func() tea.Cmd { o.move(page()); return nil }},
		{k.Top, func() tea.Cmd { o.move(-len(o.rows)); return nil }},
		{k.Bottom, func() tea.Cmd { o.move(len(o.rows)); return nil }},
		{k.Actions, func() tea.Cmd { o.act = overviewAction{mode: actMenu}; return nil }},
		{k.New, func() tea.Cmd { return navigate(newPeeringMsg{}) }},
	}, o.menuActions(k)...)
}

// overviewColumns are the widths of the columns that vary, from every row
// (once per overview, not per frame).
type overviewColumns struct{ remote, stage, health int }

func columnsOf(rows []OverviewRow) overviewColumns {
	c := overviewColumns{remote: len("REMOTE"), stage: len("STAGE"), health: colHealth}
	for i := range rows {
		c.remote = max(c.remote, len(rows[i].RemoteID))
		c.stage = max(c.stage, len(rows[i].Stage))
		c.health = max(c.health, len(rows[i].Health.Verdict))
	}
	c.remote, c.stage = min(c.remote, 40), min(c.stage, 24)
	return c
}

// Fixed column widths: "consumer", "0.x", "Cordoned", a date; the health's
// is at least "incomplete".
const colRole, colGen, colCondition, colExpires, colHealth = 8, 3, 9, 10, 10

// rowLine renders one row (marker: the cursor's, one cell or a number)
// in width cells. The cells before the reason are ASCII (IDs, stages,
// conditions), so their width is their length: no width measured per row.
func (o *overviewScreen) rowLine(r OverviewRow, marker string, width int) string {
	expires := "-"
	if !r.CertificateNotAfter.IsZero() {
		expires = r.CertificateNotAfter.UTC().Format("2006-01-02")
	}
	cells := " " + o.cells(width, r.RemoteID, orDefault(string(r.Role), "-"), r.Generation, orDefault(string(r.Stage), "-"),
		orDefault(r.Condition(), "-"), expires)
	health := fmt.Sprintf("%-*s", o.cols.health, r.Health.Verdict)
	used := ansi.StringWidth(marker) + len(cells) + o.cols.health + 2
	line := marker + cells + verdictStyle(r.Health.Verdict).Render(health)
	if width <= used || r.Health.Reason == "" {
		return line
	}
	return line + "  " + styleSubtle.Render(truncate(r.Health.Reason, width-used))
}

func (o *overviewScreen) headerLine(width int) string {
	return "  " + o.cells(width, "REMOTE", "ROLE", "GEN", "STAGE", "CONDITION", "EXPIRES") + fmt.Sprintf("%-*s  REASON", o.cols.health, "HEALTH")
}

// cells pads the columns before the health, each followed by two spaces;
// under 100 cells the expiry is left out (the panel below shows it).
func (o *overviewScreen) cells(width int, remote, role, gen, stage, condition, expires string) string {
	c := o.cols
	line := fmt.Sprintf("%-*s  %-*s  %-*s  %-*s  %-*s  ", c.remote, cut(remote, c.remote), colRole, role, colGen, gen,
		c.stage, cut(stage, c.stage), colCondition, condition)
	if width >= 100 {
		line += fmt.Sprintf("%-*s  ", colExpires, expires)
	}
	return line
}

// cut shortens an ASCII cell to w.
func cut(s string, w int) string {
	if len(s) <= w {
		return s
	}
	return s[:max(w-1, 0)] + "…"
}

func verdictStyle(v handshake.Verdict) lipgloss.Style {
	switch v {
	case handshake.VerdictOK:
		return styleOK
	case handshake.VerdictUnauthenticated:
		return styleSubtle
	case handshake.VerdictPending, handshake.VerdictCordoned, handshake.VerdictExpiring, handshake.VerdictDrained:
		return styleWarn
	}
	return styleErr
}

// title says whose peerings are listed, how many need attention and
// whether they are kept up to date.
func (o *overviewScreen) title(width int) string {
	head := "Peerings of cluster " + o.listedID
	if o.other != nil {
		head += " with " + o.otherID
	}
	attention := o.attention
	line := fmt.Sprintf("%d peering(s), %d need(s) attention · kept up to date from watches", len(o.rows), attention)
	switch {
	case o.watchErr != nil:
		line = fmt.Sprintf("%d peering(s), %d need(s) attention · not kept up to date: %s", len(o.rows), attention, oneLine(o.watchErr.Error()))
	}
	return styleHeader.Render(head) + "\n" + styleSubtle.Render(truncate(line, width))
}

// View renders the title, the rows in the window and, below, the action
// panel. Only the window's rows are rendered.
func (o *overviewScreen) View(width, height int) string {
	panel := o.panel(width, max(height/2, 4))
	top := o.title(width) + "\n\n"
	win := height - lipgloss.Height(top) - 1 - lipgloss.Height(panel) - 2
	o.win = max(win, 3)
	o.scroll()
	var b strings.Builder
	b.WriteString(top)
	if len(o.rows) == 0 {
		b.WriteString("No peerings left on this cluster: n starts a new one.\n")
	} else {
		b.WriteString(styleSubtle.Render(truncate(o.headerLine(width), width)) + "\n")
		end := min(o.offset+o.win, len(o.rows))
		for i := o.offset; i < end; i++ {
			marker := " "
			if i == o.cursor {
				marker = styleKey.Render("›")
			}
			b.WriteString(o.rowLine(o.rows[i], marker, width) + "\n") // the wizard cuts what is too wide
		}
		if len(o.rows) > o.win {
			b.WriteString(styleSubtle.Render(fmt.Sprintf("  rows %d–%d of %d", o.offset+1, end, len(o.rows))) + "\n")
		}
	}
	b.WriteString("\n" + panel)
	return b.String()
}

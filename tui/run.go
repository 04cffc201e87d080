package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Messages from a running phase. gen tells runs apart, so a message from a
// run that was cancelled or retried is ignored.
type (
	eventMsg struct {
		gen int
		ev  handshake.Event
	}
	phaseDoneMsg struct {
		gen   int
		phase int
		v     any
		err   error
	}
)

type stepState int

const (
	statePending stepState = iota
	stateRunning
	stateDone
	stateFailed
)

type stepRow struct {
	id      string
	scope   handshake.Scope
	title   string // spinner text, then the success or failure line
	command string
	state   stepState
	started time.Time
	elapsed time.Duration
	notes   []handshake. // controller Events and notes, as they arrive
		Event
}

type phaseRow struct {
	title string
	state stepState
	steps []*stepRow
	total int
}

type runKeys struct {
	Continue, Scroll, Commands key.Binding
	Up, Down                   key.Binding
}

func (k runKeys) ShortHelp() []key.Binding { return []key.Binding{k.Continue, k.Scroll, k.Commands} }
func (k runKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Continue, k.Scroll, k.Commands}}
}

// runScreen runs an operation and renders its steps from the flow events.
type runScreen struct {
	s        *session
	op       operation
	phases   []*phaseRow
	current  int
	gen      int
	events   chan tea.Msg
	done     chan struct{}
	cancelFn context.CancelFunc
	spinner  spinner.Model
	keys     runKeys
	showCmds bool
	finished bool
	// offset scrolls a finished list up by that many lines; maxOffset is
	// how far it can go at the last size drawn.
	offset, maxOffset int
}

var runGen int

func newRunScreen(s *session, op operation) *runScreen {
	r := &runScreen{s: s, op: op, spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(styleWarn)),
		keys: runKeys{
			Continue: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "continue"), key.WithDisabled()),
			Scroll:   key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "scroll"), key.WithDisabled()),
			Up:       key.NewBinding(key.WithKeys("up", "k")),
			Down:     key.NewBinding(key.WithKeys("down", "j")),
			Commands: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "command panel")),
		}, showCmds: true}
	for _, p := range op.Phases {
		r.phases = append(r.phases, &phaseRow{title: p.Title})
	}
	return r
}

func (r *runScreen) Init() tea.Cmd {
	return tea.Batch(r.spinner.Tick, r.start(0))
}

// start runs phase i on a goroutine; its events and result come back
// through a channel that listen reads one message at a time.
func (r *runScreen) start(i int) tea.Cmd {
	r.s.wrote = true
	runGen++
	r.gen, r.current = runGen, i
	r.phases[i].state = stateRunning
	ctx, cancel := r.s.opContext()
	r.cancelFn = cancel
	ch := make(chan tea.Msg, 256)
	done := make(chan struct{})
	r.events, r.done = ch, done
	gen, ph := r.gen, r.op.Phases[i]
	sink := func(ev handshake.Event) {
		select {
		case ch <- eventMsg{gen: gen, ev: ev}:
		case <-done: // the phase is over: late Events are dropped
		}
	}
	go func() {
		v, err := runPhase(ctx, ph, sink)
		select {
		case ch <- phaseDoneMsg{gen: gen, phase: i, v: v, err: err}:
		case <-done:
		}
	}()
	return listen(ch)
}

// runPhase runs ph, turning a panic of the flow behind it into an error:
// the phase runs on a goroutine of its own, outside bubbletea's recover,
// where a panic would end the process with the terminal in raw mode.
func runPhase(ctx context.Context, ph phase, sink handshake.Sink) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			what := "the operation"
			if ph.Title != "" {
				what = fmt.Sprintf("%q", ph.Title)
			}
			v, err = nil, recovered(what, p)
		}
	}()
	return ph.Run(ctx, sink)
}

func listen(ch chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

func (r *runScreen) cancel() {
	if r.cancelFn != nil {
		r.cancelFn()
	}
	if r.done != nil {
		select {
		case <-r.done:
		default:
			close(r.done)
		}
	}
}

func (r *runScreen) Typing() bool { return false }

func (r *runScreen) Keys() help.KeyMap {
	k := r.keys
	k.Scroll.SetEnabled(r.finished && r.maxOffset > 0)
	return k
}

func (r *runScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		var cmd tea.Cmd
		r.spinner, cmd = r.spinner.Update(msg)
		return r, cmd
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, r.keys.Commands):
			r.showCmds = !r.showCmds
		case key.Matches(msg, r.keys.Continue) && r.op.Then != nil:
			r.keys.Continue.SetEnabled(false)
			return r, r.op.Then(r.s)
		case r.finished && key.Matches(msg, r.keys.Up):
			r.offset = min(r.offset+1, r.maxOffset)
		case r.finished && key.Matches(msg, r.keys.Down):
			r.offset = max(r.offset-1, 0)
		}
		return r, nil
	case eventMsg:
		if msg.gen != r.gen {
			return r, nil
		}
		r.record(msg.ev)
		return r, listen(r.events)
	case phaseDoneMsg:
		if msg.gen != r.gen {
			return r, nil
		}
		r.cancel()
		p := r.phases[msg.phase]
		if msg.err != nil {
			p.state = stateFailed
			for _, st := range p.steps {
				if st.state == stateRunning {
					st.state = stateFailed
				}
			}
			return r, navigate(failedOp(r.s, r.op, msg.err))
		}
		p.state = stateDone
		if ap := r.op.Phases[msg.phase].Apply; ap != nil && msg.v != nil {
			ap(r.s, msg.v)
		}
		if msg.phase+1 < len(r.phases) {
			return r, r.start(msg.phase + 1)
		}
		r.finished = true
		if r.op.Review {
			// Stay on what changed until the admin goes on.
			r.keys.Continue.SetEnabled(true)
			return r, nil
		}
		if r.op.Then != nil {
			return r, r.op.Then(r.s)
		}
	}
	return r, nil
}

// lines runs the operation's phases in turn, printing their progress as
// lines (one per step done or failed, controller Event and note).
func (r *runScreen) lines(u *lineUI) (tea.Msg, error) {
	s, op := r.s, r.op
	s.wrote = true
	u.println("")
	u.println(op.Title)
	for _, ph := range op.Phases {
		if len(op.Phases) > 1 {
			u.println(ph.Title + "…")
		}
		ctx, cancel := s.opContext()
		sink, stop := u.progress()
		v, err := runPhase(ctx, ph, sink)
		stop()
		cancel()
		if err != nil {
			if u.ctx.Err() != nil {
				return nil, u.ctx.Err()
			}
			return failedOp(s, op, err), nil
		}
		if ph.Apply != nil && v != nil {
			ph.Apply(s, v)
		}
	}
	if op.Then == nil {
		return gotoDetectMsg{}, nil
	}
	return u.await(r, op.Then(s))
}

// record applies one flow event to the step list.
func (r *runScreen) record(ev handshake.Event) {
	p := r.phases[r.current]
	if ev.Total > 0 {
		p.total = ev.Total
	}
	find := func() *stepRow {
		for _, st := range p.steps {
			if st.id == ev.Step && st.scope == ev.Scope {
				return st
			}
		}
		return nil
	}
	switch ev.Kind {
	case handshake.StepStarted:
		st := find()
		if st == nil {
			st = &stepRow{id: ev.Step, scope: ev.Scope}
			p.steps = append(p.steps, st)
		}
		st.title, st.command, st.state = ev.Message, ev.Command, stateRunning
		st.started = ev.Time
		if st.started.IsZero() {
			st.started = r.s.now()
		}
	case handshake.StepDone, handshake.StepFailed:
		st := find()
		if st == nil {
			st = &stepRow{id: ev.Step, scope: ev.Scope, command: ev.Command}
			p.steps = append(p.steps, st)
		}
		st.title, st.elapsed = ev.Message, ev.Elapsed
		st.state = stateDone
		if ev.Kind == handshake.StepFailed {
			st.state = stateFailed
		}
	case handshake.ClusterEvent, handshake.Note:
		var st *stepRow
		for i := len(p.steps) - 1; i >= 0; i-- {
			if p.steps[i].state == stateRunning {
				st = p.steps[i]
				break
			}
		}
		if st == nil && len(p.steps) > 0 {
			st = p.steps[len(p.steps)-1]
		}
		if st == nil {
			st = &stepRow{id: "note", scope: ev.Scope, state: stateDone}
			p.steps = append(p.steps, st)
		}
		st.notes = append(st.notes, ev)
	}
}

func (r *runScreen) View(width, height int) string {
	var lines []string
	lines = append(lines, styleHeader.Render(truncate(r.op.Title, width)), "")
	var running *stepRow
	for _, p := range r.phases {
		if p.state == statePending {
			lines = append(lines, styleSubtle.Render(truncate(iconPending+" "+p.title, width)))
			continue
		}
		for _, st := range p.steps {
			lines = append(lines, r.stepLine(st, width))
			for _, n := range st.notes {
				lines = append(lines, noteLine(n, width))
			}
			if st.state == stateRunning {
				running = st
			}
		}
		if p.state == stateRunning && p.total > len(p.steps) {
			lines = append(lines, styleSubtle.Render(fmt.Sprintf("%s %d more step(s)", iconPending, p.total-len(p.steps))))
		}
	}
	if r.finished && r.op.Review {
		lines = append(lines, "", styleOK.Render(iconDone+" Done.")+" Press enter to continue.")
	}
	panel := ""
	if r.showCmds {
		panel = r.commandPanel(running, width)
	}
	avail := height - lipgloss.Height(panel) - 1
	if panel == "" {
		avail = height
	}
	r.maxOffset = 0
	if body, slots := lines[1:], avail-1; len(body) > slots && slots > 2 {
		// Keep the title and the most recent lines; once finished, the
		// admin may scroll up to the earlier ones (offset lines up).
		r.maxOffset = len(body) - (slots - 1)
		offset := min(r.offset, r.maxOffset)
		end := len(body) - offset
		rows := slots
		if offset > 0 {
			rows-- // the "later" marker
		}
		start := max(end-rows, 0)
		if start > 0 {
			start++ // the "earlier" marker
		}
		window := []string{lines[0]}
		if start > 0 {
			window = append(window, styleSubtle.Render(fmt.Sprintf("… %d earlier line(s)", start)))
		}
		window = append(window, body[start:end]...)
		if offset > 0 {
			window = append(window, styleSubtle.Render(fmt.Sprintf("… %d later line(s)", offset)))
		}
		lines = window
	}
	out := strings.Join(lines, "\n")
	if panel != "" {
		pad := max(avail-len(lines), 0)
		out += strings.Repeat("\n", pad+1) + panel
	}
	return out
}

func (r *runScreen) stepLine(st *stepRow, width int) string {
	icon := styleSubtle.Render(iconPending)
	elapsed := st.elapsed
	switch st.state {
	case stateRunning:
		icon = strings.TrimSpace(r.spinner.View())
		if !st.started.IsZero() {
			elapsed = r.s.now().Sub(st.started)
		}
	case stateDone:
		icon = styleOK.Render(iconDone)
	case stateFailed:
		icon = styleErr.Render(iconFailed)
	}
	text := st.title
	if st.scope != handshake.NoScope {
		text = "(" + string(st.scope) + ") " + text
	}
	right := styleSubtle.Render(formatElapsed(elapsed))
	room := width - lipgloss.Width(right) - 3
	text = truncate(text, max(room, 10))
	if st.state == stateFailed {
		text = styleErr.Render(text)
	}
	gap := max(width-lipgloss.Width(icon)-1-lipgloss.Width(text)-lipgloss.Width(right), 1)
	return icon + " " + text + strings.Repeat(" ", gap) + right
}

func noteLine(ev handshake.Event, width int) string {
	switch {
	case ev.Kind == handshake.ClusterEvent && ev.Warning:
		return "    " + styleWarn.Render(truncate(iconWarn+" Event "+ev.Reason+": "+ev.Message, width-4))
	case ev.Kind == handshake.ClusterEvent:
		return "    " + styleSubtle.Render(truncate(iconInfo+" Event "+ev.Reason+": "+ev.Message, width-4))
	}
	return "    " + styleSubtle.Render(truncate(iconInfo+" "+ev.Message, width-4))
}

func (r *runScreen) commandPanel(st *stepRow, width int) string {
	if st == nil {
		// The last step that has a command.
		for i := len(r.phases) - 1; i >= 0 && st == nil; i-- {
			for j := len(r.phases[i].steps) - 1; j >= 0; j-- {
				if r.phases[i].steps[j].command != "" {
					st = r.phases[i].steps[j]
					break
				}
			}
		}
	}
	cmd := "(no equivalent command for this step)"
	if st != nil && st.command != "" {
		cmd = st.command
	}
	inner := max(width-4, 10)
	title := styleSubtle.Render("Equivalent command")
	return stylePanel.Width(width).Render(title + "\n" + styleCode.Render(wrap(cmd, inner)))
}

func formatElapsed(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return handshake.HumanDuration(d)
}

// wrap breaks s into lines of at most w cells (hard breaks for long words).
func wrap(s string, w int) string {
	return lipgloss.NewStyle().Width(w).Render(s)
}

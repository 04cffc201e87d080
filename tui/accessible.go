package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Accessible mode (ACCESSIBLE=1 or TERM=dumb): the same wizard as plain
// lines. Nothing is redrawn: questions are huh's accessible prompts or
// plain line reads, progress is one line per step (like the batch output).
// Each screen has a line mode, its lines method, next to its Update and
// View: it asks and prints through a lineUI, runs the same actions and
// commands (runCmd) and returns the same navigation messages. This file
// follows them from screen to screen and holds what they share.

// lineWidth is the width screens are rendered at before they are printed
// as plain lines: wide enough that nothing is cut; prose is not re-wrapped.
const lineWidth = 512

// lineUI is the line reader and writer the screens' line modes share.
type lineUI struct {
	ctx context.Context
	s   *session
	in  *lineReader
	out io.Writer
	mu  sync.Mutex
	// banner is the last resume note printed (it is printed once).
	banner string
}

// runAccessible runs the whole wizard as line prompts on in and out.
func runAccessible(ctx context.Context, s *session, in io.Reader, out io.Writer) error {
	u := &lineUI{ctx: ctx, s: s, in: newLineReader(ctx, in),
		out: &colorprofile.Writer{Forward: out, Profile: colorprofile.Detect(out, s.opts.Environ)}}
	defer u.in.close()
	u.println("liqo-auth-tui · Liqo authentication (plain prompts)")
	err := u.loop()
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, huh.ErrUserAborted) || ctx.Err() != nil {
		u.println("")
		// A signal (Ctrl-C) interrupts; the end of the input before any
		// write is just leaving.
		if s.done || ctx.Err() == nil && !s.wrote {
			return nil
		}
		return ErrAborted
	}
	return err
}

// loop runs the screens' line modes, following their navigation messages
// as the full-screen wizard does (session.screenFor).
func (u *lineUI) loop() error {
	var sc screen = newStartScreen(u.s)
	for {
		msg, err := sc.lines(u)
		switch {
		case err != nil:
			return err
		case msg == nil:
			return errors.New("wizard: a step led nowhere")
		}
		if _, ok := msg.(tea.QuitMsg); ok {
			if !u.s.interrupts() {
				return nil
			}
			return ErrAborted
		}
		if sc = u.s.screenFor(msg); sc == nil {
			return fmt.Errorf("wizard: unexpected step %T", msg)
		}
	}
}

// await runs cmd with runCmd: the messages it returns go back to sc's
// Update (what only animates is dropped) until the first navigation
// message, which is returned once nothing is left to run.
func (u *lineUI) await(sc screen, cmd tea.Cmd) (tea.Msg, error) {
	var nav tea.Msg
	err := runCmd(u.ctx, cmd, func(msg tea.Msg) tea.Cmd {
		switch {
		case isNavigation(msg):
			if nav == nil {
				nav = msg
			}
		case animation(msg):
		default:
			var next tea.Cmd
			sc, next = sc.Update(msg)
			return next
		}
		return nil
	})
	return nav, err
}

// isNavigation tells the messages that move the wizard to another step:
// a navigation message, or the quit that ends the line mode's loop.
func isNavigation(msg tea.Msg) bool {
	switch msg.(type) {
	case navigation, tea.QuitMsg:
		return true
	}
	return false
}

// Output.

func (u *lineUI) println(s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fmt.Fprintln(u.out, s)
}

func (u *lineUI) printf(format string, args ...any) { u.println(fmt.Sprintf(format, args...)) }

// logLine prints a batch-style progress line: " INFO   (local) message".
func (u *lineUI) logLine(level string, scope handshake.Scope, msg string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.writeLog(level, scope, msg)
}

// writeLog writes a progress line; u.mu is held.
func (u *lineUI) writeLog(level string, scope handshake.Scope, msg string) {
	msg = oneLine(msg)
	if scope != handshake.NoScope {
		msg = "(" + string(scope) + ") " + msg
	}
	fmt.Fprintf(u.out, " %-6s %s\n", level, msg)
}

// printBanner prints where the wizard resumed, once; it tells whether it
// printed it.
func (u *lineUI) printBanner() bool {
	if b := u.s.banner; b != "" && b != u.banner {
		u.banner = b
		u.println(b)
		return true
	}
	return false
}

// plain turns a rendered screen into plain lines: no styles, no padding.
func plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// progress is a Sink printing one line per step done or failed, controller
// Event and note. stop drops the events that come after the phase ended.
func (u *lineUI) progress() (sink handshake.Sink, stop func()) {
	var closed bool
	sink = func(ev handshake.Event) {
		u.mu.Lock()
		defer u.mu.Unlock()
		if closed {
			return
		}
		switch ev.Kind {
		case handshake.StepDone, handshake.Note:
			u.writeLog("INFO", ev.Scope, ev.Message)
		case handshake.StepFailed:
			u.writeLog("ERRO", ev.Scope, ev.Message)
		case handshake.ClusterEvent:
			level := "INFO"
			if ev.Warning {
				level = "WARN"
			}
			u.writeLog(level, ev.Scope, "Event "+ev.Reason+": "+ev.Message)
		}
	}
	return sink, func() {
		u.mu.Lock()
		closed = true
		u.mu.Unlock()
	}
}

// Input.

// form runs a huh form as accessible line prompts.
func (u *lineUI) form(f *huh.Form) error {
	if err := f.WithAccessible(true).WithInput(u.in).WithOutput(u.out).RunWithContext(u.ctx); err != nil {
		return err
	}
	// huh's prompts fall back to their default when the input ends.
	return u.in.err
}

func (u *lineUI) ask(fields ...huh.Field) error {
	return u.form(huh.NewForm(huh.NewGroup(fields...)).WithShowHelp(false))
}

// confirm asks a yes/no question (no is the default), after its details.
func (u *lineUI) confirm(question, details string) (bool, error) {
	if details != "" {
		u.println(plain(details))
	}
	var yes bool
	err := u.ask(huh.NewConfirm().Title(question).Value(&yes))
	return yes && err == nil, err
}

// confirmQuit is the quit confirmation of the full-screen wizard.
func (u *lineUI) confirmQuit() (bool, error) {
	if !u.s.interrupts() {
		return true, nil
	}
	return u.confirm("Quit before the handshake is finished?",
		"What is done so far stays on the clusters, and every step is re-runnable: run liqo-auth-tui again to resume where it stopped.")
}

// readLine reads one line of input, without its line ending.
func (u *lineUI) readLine() (string, error) { return u.in.readLine() }

// choice is a menu entry: the keys that choose it and what it does.
type choice struct {
	keys  []string
	label string
}

var quitChoice = choice{keys: []string{"q"}, label: "quit"}

// pick shows a menu in which "q" quits after confirmation: a confirmed
// quit comes back as a tea.QuitMsg, a cancelled one as an empty key (show
// the menu again).
func (u *lineUI) pick(title string, choices []choice) (string, tea.Msg, error) {
	k, err := u.menu(title, append(choices, quitChoice))
	if err != nil || k != "q" {
		return k, nil, err
	}
	if ok, err := u.confirmQuit(); ok || err != nil {
		return "", tea.QuitMsg{}, err
	}
	return "", nil, nil
}

// offer is the menu of a screen's enabled actions, with q (quit) when
// quit is set: it runs the action typed and returns its command, or the
// confirmed quit. Neither comes back when the quit is cancelled.
func (u *lineUI) offer(title string, actions []action, quit bool) (tea.Cmd, tea.Msg, error) {
	var on []action
	var choices []choice
	for _, a := range actions {
		if a.key.Enabled() && len(a.key.Keys()) > 0 {
			on = append(on, a)
			choices = append(choices, choice{keys: a.key.Keys(), label: a.key.Help().Desc})
		}
	}
	var k string
	var quitMsg tea.Msg
	var err error
	if quit {
		k, quitMsg, err = u.pick(title, choices)
	} else {
		k, err = u.menu(title, choices)
	}
	for _, a := range on {
		if k != "" && a.key.Keys()[0] == k {
			return a.do(), nil, err
		}
	}
	return nil, quitMsg, err
}

// menu lists the choices with the keys the full-screen wizard uses and
// reads one (an empty line is enter); it returns the choice's first key.
func (u *lineUI) menu(title string, choices []choice) (string, error) {
	width := 0
	for _, c := range choices {
		width = max(width, len(c.keys[0]))
	}
	u.println(title + " Type a key, then Return:")
	for _, c := range choices {
		u.printf("  %-*s  %s", width, c.keys[0], c.label)
	}
	for {
		u.mu.Lock()
		fmt.Fprint(u.out, "> ")
		u.mu.Unlock()
		line, err := u.readLine()
		if err != nil {
			return "", err
		}
		in := strings.TrimSpace(line)
		if in == "" {
			in = "enter"
		}
		if c, ok := matchChoice(choices, in); ok {
			return c.keys[0], nil
		}
		if in == "enter" {
			u.println("Type one of the keys above.")
		} else {
			u.printf("%q is not one of the keys above.", in)
		}
	}
}

// matchChoice finds the choice with key in: exactly, else a key name
// (enter, esc, tab) in any case. Letters match exactly: i runs init, I
// installs the controller.
func matchChoice(choices []choice, in string) (choice, bool) {
	var folded []choice
	for _, c := range choices {
		for _, k := range c.keys {
			if k == in {
				return c, true
			}
			if len(k) > 1 && strings.EqualFold(k, in) {
				folded = append(folded, c)
				break
			}
		}
	}
	if len(folded) == 1 {
		return folded[0], true
	}
	return choice{}, false
}

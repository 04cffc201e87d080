package tui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Accessible mode (ACCESSIBLE=1 or TERM=dumb): the same wizard as plain
// lines. Nothing is redrawn: questions are huh's accessible prompts or
// plain line reads, progress is one line per step (like the batch output).
// It drives the very screens and operations of the full-screen wizard —
// their keys, their backend calls, their navigation messages — and only
// replaces how they are shown and answered.

// lineWidth is the width screens are rendered at before they are printed
// as plain lines: wide enough that nothing is cut; prose is not re-wrapped.
const lineWidth = 512

// lineUI runs the wizard on a line reader and writer.
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
		if s.done {
			return nil
		}
		return ErrAborted
	}
	return err
}

// loop follows the navigation messages from screen to screen.
func (u *lineUI) loop() error {
	if err := u.start(false); err != nil {
		return err
	}
	var msg tea.Msg = gotoDetectMsg{}
	for {
		var err error
		switch m := msg.(type) {
		case gotoDetectMsg:
			msg, err = u.detect()
		case editStartMsg:
			u.s.mode = ModeUndecided
			err, msg = u.start(true), gotoDetectMsg{}
		case gotoPeerMsg:
			msg, err = u.peer()
		case gotoRunMsg:
			msg, err = u.run(m.op)
		case gotoHandoffMsg:
			msg, err = u.handoff(m.art)
		case gotoReceiveMsg:
			msg, err = u.receive(m.kind)
		case gotoSummaryMsg:
			u.s.done = true
			msg, err = u.summary()
		case gotoErrorMsg:
			msg, err = u.failure(m.err, m.retry)
		case tea.QuitMsg:
			if u.s.done {
				return nil
			}
			return ErrAborted
		case nil:
			return errors.New("wizard: a step led nowhere")
		default:
			return fmt.Errorf("wizard: unexpected step %T", msg)
		}
		if err != nil {
			return err
		}
	}
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

// printBanner prints where the wizard resumed, once.
func (u *lineUI) printBanner() {
	if b := u.s.banner; b != "" && b != u.banner {
		u.banner = b
		u.println(b)
	}
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
	if u.s.done {
		return true, nil
	}
	return u.confirm("Quit before the handshake is finished?",
		"What is done so far stays on the clusters, and every step is re-runnable: run liqo-auth-tui again to resume where it stopped.")
}

// pick shows a menu in which "q" quits after confirmation: a confirmed
// quit comes back as a tea.QuitMsg, a cancelled one as an empty key (show
// the menu again).
func (u *lineUI) pick(title string, choices []choice) (string, tea.Msg, error) {
	k, err := u.menu(title, choices)
	if err != nil || k != "q" {
		return k, nil, err
	}
	if ok, err := u.confirmQuit(); ok || err != nil {
		return "", tea.QuitMsg{}, err
	}
	return "", nil, nil
}

// choice is a menu entry: the keys of a screen's binding and what it does.
type choice struct {
	keys  []string
	label string
}

var quitChoice = choice{keys: []string{"q"}, label: "quit"}

// bindingChoices are the enabled bindings of a screen, as menu entries.
func bindingChoices(bs []key.Binding) []choice {
	var out []choice
	for _, b := range bs {
		if b.Enabled() && len(b.Keys()) > 0 {
			out = append(out, choice{keys: b.Keys(), label: b.Help().Desc})
		}
	}
	return out
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
		line, err := u.in.readLine()
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

// keyPress is the key message a screen's binding matches.
func keyPress(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	if k, ok := strings.CutPrefix(name, "ctrl+"); ok && len(k) == 1 {
		return tea.KeyPressMsg{Code: rune(k[0]), Mod: tea.ModCtrl}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: string(r)}
}

// Driving the screens.

// isNavigation tells the messages that move the wizard to another step.
func isNavigation(msg tea.Msg) bool {
	switch msg.(type) {
	case gotoDetectMsg, gotoPeerMsg, gotoRunMsg, gotoHandoffMsg, gotoReceiveMsg, gotoSummaryMsg, gotoErrorMsg,
		editStartMsg, tea.QuitMsg:
		return true
	}
	return false
}

// isWork tells the messages that carry a backend or file result back to
// the screen that asked; the others (spinner ticks, cursor blinks) only
// animate and are dropped.
func isWork(msg tea.Msg) bool {
	switch msg.(type) {
	case probeMsg, stageMsg, peersMsg, peerStageMsg, validatedMsg, fileReadMsg, savedMsg, contextsMsg:
		return true
	}
	return false
}

// settle runs cmd, concurrently for a batch, and feeds the results back to
// sc, until a navigation message comes (returned) or nothing is left.
func (u *lineUI) settle(sc screen, cmd tea.Cmd) tea.Msg {
	results := make(chan tea.Msg)
	pending := 0
	launch := func(c tea.Cmd) {
		if c == nil {
			return
		}
		pending++
		go func() { results <- c() }()
	}
	launch(cmd)
	var nav tea.Msg
	for pending > 0 {
		msg := <-results
		pending--
		switch m := msg.(type) {
		case tea.BatchMsg:
			for _, c := range m {
				launch(c)
			}
			continue
		}
		// tea.Sequence's message is a []tea.Cmd of an unexported type.
		if v := reflect.ValueOf(msg); v.IsValid() && v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeFor[tea.Cmd]() {
			for i := range v.Len() {
				launch(v.Index(i).Interface().(tea.Cmd))
			}
			continue
		}
		switch {
		case isNavigation(msg):
			if nav == nil {
				nav = msg
			}
		case isWork(msg) && sc != nil:
			var next tea.Cmd
			sc, next = sc.Update(msg)
			launch(next)
		}
	}
	return nav
}

// confirmer is a screen that waits for y or n ("" = it does not).
type confirmer interface {
	confirming() (question, details string)
}

// press sends a key to sc, asks the confirmation it may raise, and runs
// what follows.
func (u *lineUI) press(sc screen, name string) (tea.Msg, error) {
	_, cmd := sc.Update(keyPress(name))
	if c, ok := sc.(confirmer); ok {
		if q, details := c.confirming(); q != "" {
			yes, err := u.confirm(q, details)
			if err != nil {
				return nil, err
			}
			answer := "n"
			if yes {
				answer = "y"
			}
			_, cmd = sc.Update(keyPress(answer))
		}
	}
	return u.settle(sc, cmd), nil
}

// Steps.

// start asks the kubeconfigs and contexts the flags did not give.
func (u *lineUI) start(forceAsk bool) error {
	s := u.s
	st := newStartScreen(s)
	if forceAsk {
		st.forceAsk, st.localCtx, st.remoteCtx = true, "", ""
	}
	for {
		if !st.anyGiven() || st.forceAsk {
			if err := u.form(pathsForm(&st.localPath, &st.remotePath, s.env, true)); err != nil {
				return err
			}
		}
		u.println("Reading the kubeconfigs…")
		m := st.loadContexts()().(contextsMsg)
		if m.localErr != nil || m.remoteErr != nil {
			err := m.localErr
			if err != nil {
				st.localPath = ""
			} else {
				err, st.remotePath = m.remoteErr, ""
			}
			u.println(iconFailed + " " + oneLine(err.Error()))
			st.forceAsk, st.localCtx, st.remoteCtx = true, "", ""
			continue
		}
		if f := contextsForm(m, &st.localCtx, &st.remoteCtx, st.askRemote()); f != nil {
			if err := u.form(f); err != nil {
				return err
			}
		}
		done := st.done()().(startDoneMsg)
		s.local, s.remote = done.local, done.remote
		return nil
	}
}

// detect probes the clusters, shows what answered and the mode, and offers
// the detect screen's keys (continue, role, mode, init, install...).
func (u *lineUI) detect() (tea.Msg, error) {
	d := newDetectScreen(u.s)
	u.println("")
	u.println("Probing the clusters…")
	if nav := u.settle(d, d.probe()); nav != nil {
		return nav, nil
	}
	for {
		u.println("")
		u.println(plain(d.View(lineWidth, 1000)))
		choices := append(bindingChoices(d.Keys().ShortHelp()), quitChoice)
		k, quit, err := u.pick("What next?", choices)
		if quit != nil || err != nil {
			return quit, err
		}
		if k == "" {
			continue
		}
		if k == "enter" && u.s.mode == ModeAutomated {
			u.println("Reading the handshake state…")
		}
		nav, err := u.press(d, k)
		if nav != nil || err != nil {
			return nav, err
		}
	}
}

// peer asks the other cluster's ID (manual mode), offering the known ones.
func (u *lineUI) peer() (tea.Msg, error) {
	s := u.s
	p := newPeerScreen(s)
	other := s.selfRole().Other()
	u.println("")
	u.printf("Which %s?", other)
	if nav := u.settle(p, p.Init()); nav != nil {
		return nav, nil
	}
	if p.err != "" {
		u.println(iconFailed + " " + p.err)
	}
	check := func(id string) error {
		if err := validateClusterID(id); err != nil {
			return err
		}
		if id == s.ownID() {
			return fmt.Errorf("%s is this cluster's own ID: give the %s's ID", id, other)
		}
		return nil
	}
	for {
		id := ""
		if len(p.peers) > 0 {
			id = p.peers[0].ID
			opts := make([]huh.Option[string], 0, len(p.peers)+1)
			for _, peer := range p.peers {
				if peer.ID == s.peerID {
					id = peer.ID
				}
				opts = append(opts, huh.NewOption(peer.ID+" ("+peer.Stage.Describe()+")", peer.ID))
			}
			opts = append(opts, huh.NewOption("another "+string(other)+": type its cluster ID", ""))
			if err := u.ask(huh.NewSelect[string]().Title(fmt.Sprintf("This %s has handshake objects for these %ss:", s.selfRole(), other)).
				Options(opts...).Value(&id)); err != nil {
				return nil, err
			}
		}
		if id == "" {
			def := s.peerID
			title := fmt.Sprintf("Cluster ID of the %s (its admin sees it with `liqo-auth-tui info`)", other)
			if def != "" {
				title += " [" + def + "]"
			}
			id = def
			if err := u.ask(huh.NewInput().Title(title).Value(&id).Validate(func(v string) error {
				if v = strings.TrimSpace(v); v == "" && def != "" {
					return nil
				}
				return check(v)
			})); err != nil {
				return nil, err
			}
		}
		p.input.SetValue(strings.TrimSpace(id))
		_, cmd := p.Update(keyPress("enter"))
		if p.err != "" {
			u.println(iconFailed + " " + p.err)
			p.err = ""
			continue
		}
		u.println("Reading the handshake state…")
		if nav := u.settle(p, cmd); nav != nil {
			return nav, nil
		}
	}
}

// run runs an operation's phases, printing their progress as lines.
func (u *lineUI) run(op operation) (tea.Msg, error) {
	s := u.s
	u.println("")
	u.println(op.Title)
	for _, ph := range op.Phases {
		if len(op.Phases) > 1 {
			u.println(ph.Title + "…")
		}
		ctx, cancel := s.opContext()
		sink, stop := u.progress()
		v, err := ph.Run(ctx, sink)
		stop()
		cancel()
		if err != nil {
			if u.ctx.Err() != nil {
				return nil, u.ctx.Err()
			}
			return gotoErrorMsg{err: err, retry: runOp(op)}, nil
		}
		if ph.Apply != nil && v != nil {
			ph.Apply(s, v)
		}
	}
	if op.Then == nil {
		return gotoDetectMsg{}, nil
	}
	return u.settle(nil, op.Then(s)), nil
}

// handoff prints an artifact for the other admin with its fingerprint and
// their next command, and offers to save it to a file.
func (u *lineUI) handoff(art *Artifact) (tea.Msg, error) {
	s := u.s
	h := newHandoffScreen(s, art)
	other := s.selfRole().Other()
	u.println("")
	u.printf("Send this %s to the %s's admin.", art.Kind, other)
	u.printBanner()
	u.println(h.printable())
	u.printf("# end of the %s", art.Kind)
	if art.Fingerprint != "" {
		u.printf("%s fingerprint: %s", capitalize(fingerprintLabel(art.Kind)), art.Fingerprint)
		u.println("Compare it with the other admin out of band (phone, chat) before going on.")
	}
	if art.Kind == KindIdentity && art.APIServer != "" {
		u.println("API server advertised to the consumer: " + art.APIServer)
	}
	if art.Kind == KindIdentity && !art.NotAfter.IsZero() {
		u.println("Certificate expires: " + plain(expiry(art.NotAfter, s.now())))
	}
	u.printf("Next, on the %s %s:", other, s.peerID)
	for _, c := range h.nextCommands() {
		u.println("  " + c)
	}
	for {
		path := ""
		if err := u.ask(huh.NewInput().Title(fmt.Sprintf("Save it to a file? Type a path (for example ./%s), or just Return to go on:", art.Kind.FileName())).
			Value(&path)); err != nil {
			return nil, err
		}
		if strings.TrimSpace(path) == "" {
			break
		}
		saved := saveCmd(path, art.Data, false)().(savedMsg)
		if errors.Is(saved.err, fs.ErrExist) {
			yes, err := u.confirm(saved.path+" exists. Overwrite it?", "")
			if err != nil {
				return nil, err
			}
			if !yes {
				continue
			}
			saved = saveCmd(path, art.Data, true)().(savedMsg)
		}
		if saved.err != nil {
			u.println(iconFailed + " Could not save: " + oneLine(saved.err.Error()))
			continue
		}
		u.printf("%s Saved to %s (mode 0600).", iconDone, saved.path)
		break
	}
	return u.settle(h, h.next()), nil
}

// receive takes an artifact pasted as lines or read from a file, validates
// it like the receive screen, and applies it once confirmed.
func (u *lineUI) receive(kind ArtifactKind) (tea.Msg, error) {
	s := u.s
	r := newReceiveScreen(s, kind)
	other := s.selfRole().Other()
	u.println("")
	u.printf("Receive the %s from the %s's admin.", kind, other)
	u.printBanner()
	u.println("Nothing is applied until it is valid and you confirm.")
	choices := []choice{
		{keys: []string{"p"}, label: "paste it here"},
		{keys: []string{"f"}, label: "read it from a file"},
		{keys: []string{"esc"}, label: "back: another " + string(other)},
		quitChoice,
	}
	for {
		k, quit, err := u.pick(fmt.Sprintf("How do you give the %s?", kind), choices)
		if quit != nil || err != nil {
			return quit, err
		}
		var cmd tea.Cmd
		switch k {
		case "":
			continue
		case "esc":
			return u.press(r, "esc")
		case "p":
			text, err := u.readPaste(kind)
			if err != nil {
				return nil, err
			}
			r.area.SetValue(text)
			cmd = r.changed(true)
		case "f":
			path := r.path.Value()
			if err := u.ask(huh.NewInput().Title(fmt.Sprintf("File with the %s [%s]", kind, path)).Value(&path)); err != nil {
				return nil, err
			}
			cmd = readFileCmd(path)
		}
		u.println("Checking…")
		if nav := u.settle(r, cmd); nav != nil {
			return nav, nil
		}
		switch {
		case r.err != nil:
			u.println(iconFailed + " " + oneLine(r.err.Error()))
			continue
		case r.art == nil:
			u.printf("Nothing received: paste the %s or give its file.", kind)
			continue
		}
		u.println(iconDone + " " + r.describe())
		if r.art.Fingerprint != "" {
			u.printf("  %s: %s (compare with the other admin)", fingerprintLabel(kind), r.art.Fingerprint)
		}
		if r.art.APIServer != "" {
			u.println("  API server: " + r.art.APIServer)
		}
		if !r.art.NotAfter.IsZero() {
			u.println("  certificate expires: " + plain(expiry(r.art.NotAfter, s.now())))
		}
		nav, err := u.press(r, r.keys.Apply.Keys()[0])
		if nav != nil || err != nil {
			return nav, err
		}
	}
}

// readPaste reads a pasted artifact: one line for a nonce, else lines up
// to an empty one.
func (u *lineUI) readPaste(kind ArtifactKind) (string, error) {
	if kind == KindNonce {
		u.println("Paste the nonce (one line), then Return:")
	} else {
		u.printf("Paste the %s, then an empty line:", kind)
	}
	var b strings.Builder
	for {
		line, err := u.in.readLine()
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(line) == "" {
			if b.Len() == 0 {
				continue
			}
			break
		}
		if b.Len() <= maxInput {
			b.WriteString(line + "\n")
		}
		if kind == KindNonce {
			break
		}
	}
	return b.String(), nil
}

// failure says what failed and what to do, and offers the error screen's
// keys (retry, back to detection).
func (u *lineUI) failure(err error, retry tea.Cmd) (tea.Msg, error) {
	e := newErrorScreen(u.s, err, retry)
	reason, hint := explain(err)
	u.println("")
	u.logLine("ERRO", handshake.NoScope, "Something failed: "+reason)
	u.println("What to do: " + hint)
	for {
		k, quit, err := u.pick("What next?", append(bindingChoices(e.Keys().ShortHelp()), quitChoice))
		if quit != nil || err != nil {
			return quit, err
		}
		if k == "" {
			continue
		}
		if nav, err := u.press(e, k); nav != nil || err != nil {
			return nav, err
		}
	}
}

// summary prints the summary screen, with the allowed/denied list.
func (u *lineUI) summary() (tea.Msg, error) {
	m := newSummaryScreen(u.s)
	m.details = true
	u.println("")
	banner := u.s.banner
	if banner == u.banner {
		u.s.banner = "" // printed already
	}
	u.println(plain(m.View(lineWidth, 1000)))
	u.s.banner = banner
	u.println("")
	var choices []choice
	for _, b := range []key.Binding{m.keys.Done, m.keys.Reverify} {
		choices = append(choices, bindingChoices([]key.Binding{b})...)
	}
	for {
		k, err := u.menu("What next?", choices)
		if err != nil {
			return nil, err
		}
		if nav, err := u.press(m, k); nav != nil || err != nil {
			return nav, err
		}
	}
}

// lineReader hands the input out one line at a time. huh's accessible
// prompts each wrap their reader in a new bufio.Scanner, which would drop
// what it read ahead: Read returns at most one line. Reading stops at the
// end of the input or when ctx is cancelled (Ctrl-C), even mid-line.
type lineReader struct {
	ctx  context.Context
	src  *bufio.Reader
	reqs chan struct{}
	resp chan lineResult
	once sync.Once
	done sync.Once
	rest []byte // the part of the current line Read has not handed out
	last error  // the error that came with the last, unterminated line
	err  error  // sticky: io.EOF, or the context's error
}

type lineResult struct {
	line string
	err  error
}

func newLineReader(ctx context.Context, r io.Reader) *lineReader {
	return &lineReader{ctx: ctx, src: bufio.NewReader(r), reqs: make(chan struct{}), resp: make(chan lineResult, 1)}
}

// loop reads a line when asked: nothing is read ahead of the questions (an
// exec credential plugin may want the terminal in between).
func (l *lineReader) loop() {
	for range l.reqs {
		line, err := l.src.ReadString('\n')
		l.resp <- lineResult{line: line, err: err}
		if err != nil {
			return
		}
	}
}

func (l *lineReader) fail(err error) (string, error) {
	l.err = err
	return "", err
}

// next returns the next line with its newline.
func (l *lineReader) next() (string, error) {
	switch {
	case l.err != nil:
		return "", l.err
	case l.last != nil:
		return l.fail(l.last)
	}
	l.once.Do(func() { go l.loop() })
	select {
	case l.reqs <- struct{}{}:
	case <-l.ctx.Done():
		return l.fail(l.ctx.Err())
	}
	select {
	case r := <-l.resp:
		if r.err != nil {
			if r.line == "" {
				return l.fail(r.err)
			}
			l.last = r.err
		}
		return r.line, nil
	case <-l.ctx.Done():
		return l.fail(l.ctx.Err())
	}
}

func (l *lineReader) Read(p []byte) (int, error) {
	if len(l.rest) == 0 {
		line, err := l.next()
		if err != nil {
			return 0, err
		}
		l.rest = []byte(line)
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

// readLine returns the next line without its line ending.
func (l *lineReader) readLine() (string, error) {
	line := string(l.rest)
	l.rest = nil
	if line == "" {
		var err error
		if line, err = l.next(); err != nil {
			return "", err
		}
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func (l *lineReader) close() { l.done.Do(func() { close(l.reqs) }) }

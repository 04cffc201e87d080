package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// maxInput bounds what is read from a file or a paste (artifact.MaxSize).
const maxInput = 256 << 10

type (
	validateTickMsg struct{ seq int }
	validatedMsg    struct {
		seq int
		art *Artifact
		err error
	}
	fileReadMsg struct {
		path string
		data []byte
		err  error
	}
)

type receiveKeys struct {
	Apply, File, Clear, Yes, No, Back key.Binding
}

func (k receiveKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Apply, k.File, k.Clear, k.Yes, k.No, k.Back}
}
func (k receiveKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Apply, k.File, k.Clear}, {k.Yes, k.No, k.Back}}
}

// ArtifactChecker validates what the receive screen is given, as it
// changes: nothing is written.
type ArtifactChecker interface {
	// CheckNonce validates a pasted nonce (no network).
	CheckNonce(data []byte) (*Artifact, error)
	// CheckTenant validates a consumer's Tenant against the provider.
	CheckTenant(ctx context.Context, provider ClusterRef, data []byte) (*Artifact, error)
	// CheckIdentity validates a provider's Identity against the consumer.
	CheckIdentity(ctx context.Context, consumer ClusterRef, data []byte) (*Artifact, error)
	// CheckPeerInfo validates a Liqo 0.x provider's peer info for consumer.
	CheckPeerInfo(ctx context.Context, consumer ClusterRef, data []byte) (*Artifact, error)
}

// receiveScreen takes an artifact from the other admin by paste (a
// bracketed paste is one tea.PasteMsg) or from a file, validates it as it
// changes and applies nothing until it is valid and confirmed.
type receiveScreen struct {
	s          *session
	checker    ArtifactChecker
	kind       handshake.ArtifactKind
	keys       receiveKeys
	area       textarea.Model
	path       textinput.Model
	fileMode   bool
	seq        int
	validating bool
	art        *Artifact
	err        error
	confirm    bool
	lastValue  string
	// prefill is put in the field at Init (back from a confirmation).
	prefill string
}

// validateDelay debounces validation while typing; a paste validates at once.
const validateDelay = 200 * time.Millisecond

func newReceiveScreen(s *session, kind handshake.ArtifactKind) *receiveScreen {
	ta := textarea.New()
	ta.Placeholder = "paste the " + receiveWhat(kind) + " here (your terminal's paste: ctrl+shift+v, cmd+v…)"
	ta.ShowLineNumbers = false
	ta.CharLimit = maxInput
	ta.MaxHeight = 0
	ta.SetHeight(6)
	steadyArea(&ta)
	pi := textinput.New()
	pi.Prompt = "file: "
	pi.Placeholder = "./" + kind.FileName() // typing replaces it
	pi.CharLimit = 4096
	steadyInput(&pi)
	r := &receiveScreen{s: s, checker: s.backend, kind: kind, area: ta, path: pi, keys: receiveKeys{
		Apply: key.NewBinding(key.WithKeys("enter", "ctrl+s"), key.WithHelp("enter/ctrl+s", "use it")),
		File:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "paste/file")),
		Clear: key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "clear")),
		Yes:   key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "apply")),
		No:    key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "not yet")),
		Back:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}}
	if kind == handshake.KindNonce {
		r.area.SetHeight(3)
	}
	r.setKeys()
	return r
}

func (r *receiveScreen) setKeys() {
	r.keys.Apply.SetEnabled(!r.confirm && r.art != nil && r.err == nil)
	r.keys.File.SetEnabled(!r.confirm)
	r.keys.Clear.SetEnabled(!r.confirm && !r.fileMode)
	r.keys.Yes.SetEnabled(r.confirm)
	r.keys.No.SetEnabled(r.confirm)
	r.keys.Back.SetEnabled(!r.confirm)
	if r.fileMode {
		r.keys.Apply.SetHelp("enter", "read file")
		r.keys.Apply.SetKeys("enter")
		r.keys.Apply.SetEnabled(!r.confirm)
	} else {
		// Enter, too, once what was pasted is valid (before, it is a new
		// line in the box).
		r.keys.Apply.SetHelp("enter/ctrl+s", "use it")
		r.keys.Apply.SetKeys("enter", "ctrl+s")
	}
}

func (r *receiveScreen) Init() tea.Cmd {
	if r.prefill != "" {
		r.area.SetValue(r.prefill)
		return tea.Batch(r.area.Focus(), r.changed(true))
	}
	return r.area.Focus()
}
func (r *receiveScreen) Typing() bool      { return !r.confirm }
func (r *receiveScreen) Keys() help.KeyMap { return r.keys }

// validate checks the current input: the artifact's shape, then against
// the cluster (the nonce made for this consumer, this consumer's key...).
func (r *receiveScreen) validate(seq int, data []byte) tea.Cmd {
	s, kind, self, checker := r.s, r.kind, r.s.self(), r.checker
	return func() tea.Msg {
		var art *Artifact
		var err error
		switch {
		case kind == handshake.KindNonce && isPeerInfo(data):
			// A Liqo 0.x provider's admin sends its peer info instead.
			ctx, cancel := s.opContext()
			defer cancel()
			art, err = checker.CheckPeerInfo(ctx, self, data)
		case kind == handshake.KindNonce:
			art, err = checker.CheckNonce(data)
		case kind == handshake.KindTenant:
			ctx, cancel := s.opContext()
			defer cancel()
			art, err = checker.CheckTenant(ctx, self, data)
		case kind == handshake.KindIdentity:
			ctx, cancel := s.opContext()
			defer cancel()
			art, err = checker.CheckIdentity(ctx, self, data)
		}
		return validatedMsg{seq: seq, art: art, err: err}
	}
}

func (r *receiveScreen) changed(now bool) tea.Cmd {
	v := r.area.Value()
	if v == r.lastValue {
		return nil
	}
	r.lastValue = v
	r.seq++
	r.art, r.err = nil, nil
	r.setKeys()
	if strings.TrimSpace(v) == "" {
		r.validating = false
		return nil
	}
	r.validating = true
	if now {
		return r.validate(r.seq, []byte(v))
	}
	seq := r.seq
	return tea.Tick(validateDelay, func(time.Time) tea.Msg { return validateTickMsg{seq: seq} })
}

func (r *receiveScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		r.area.SetWidth(max(msg.Width-2, 10))
		r.path.SetWidth(max(msg.Width-10, 10))
		h := 10
		if r.kind == handshake.KindNonce {
			h = 3
		}
		r.area.SetHeight(max(min(h, msg.Height-16), 2))
		return r, nil
	case validateTickMsg:
		if msg.seq == r.seq {
			return r, r.validate(msg.seq, []byte(r.area.Value()))
		}
		return r, nil
	case validatedMsg:
		if msg.seq != r.seq {
			return r, nil
		}
		r.validating = false
		r.art, r.err = msg.art, msg.err
		if r.art == nil && r.err == nil {
			r.err = fmt.Errorf("not a valid %s", r.kind)
		}
		if r.art != nil && r.kind != handshake.KindNonce && r.s.peerID != "" && r.art.FromID != r.s.peerID {
			r.err = fmt.Errorf("this %s is from cluster %s, but this handshake is with %s: ask the right admin, or go back (esc) and pick %s",
				r.kind, r.art.FromID, r.s.peerID, r.art.FromID)
			r.art = nil
		}
		if err := r.wrongProvider(); err != nil {
			r.art, r.err = nil, err
		}
		r.setKeys()
		return r, nil
	case fileReadMsg:
		if msg.err != nil {
			r.err = msg.err
			r.art = nil
			r.setKeys()
			return r, nil
		}
		r.fileMode = false
		r.path.Blur()
		r.area.SetValue(pastedText(string(msg.data)))
		r.setKeys()
		return r, tea.Batch(r.area.Focus(), r.changed(true))
	case tea.PasteMsg:
		if r.confirm {
			return r, nil
		}
		if r.fileMode {
			var cmd tea.Cmd
			r.path, cmd = r.path.Update(msg)
			return r, cmd
		}
		// A whole paste arrives as one message: validate it at once.
		var cmd tea.Cmd
		r.area, cmd = r.area.Update(tea.PasteMsg{Content: pastedText(msg.Content)})
		return r, tea.Batch(cmd, r.changed(true))
	case tea.KeyPressMsg:
		if r.confirm {
			switch {
			case key.Matches(msg, r.keys.Yes):
				return r, r.apply()
			case key.Matches(msg, r.keys.No):
				r.confirm = false
				r.setKeys()
			}
			return r, nil
		}
		switch {
		case key.Matches(msg, r.keys.Back):
			return r, navigate(gotoPeerMsg{})
		case key.Matches(msg, r.keys.File):
			r.fileMode = !r.fileMode
			r.setKeys()
			if r.fileMode {
				r.area.Blur()
				r.path.CursorEnd()
				return r, r.path.Focus()
			}
			r.path.Blur()
			return r, r.area.Focus()
		case r.fileMode && key.Matches(msg, r.keys.Apply):
			return r, readFileCmd(valueOrPlaceholder(r.path))
		case key.Matches(msg, r.keys.Apply) && r.peerInfo():
			// Its own confirmation screen asks before anything is sent.
			return r, navigate(gotoLiqo0xConfirmMsg{art: r.art, data: []byte(r.area.Value())})
		case key.Matches(msg, r.keys.Apply):
			r.confirm = true
			r.setKeys()
			return r, nil
		case key.Matches(msg, r.keys.Clear):
			r.area.Reset()
			return r, r.changed(false)
		}
		var cmd tea.Cmd
		if r.fileMode {
			r.path, cmd = r.path.Update(msg)
			return r, cmd
		}
		r.area, cmd = r.area.Update(msg)
		return r, tea.Batch(cmd, r.changed(false))
	}
	var cmd tea.Cmd
	if r.fileMode {
		r.path, cmd = r.path.Update(msg)
	} else {
		r.area, cmd = r.area.Update(msg)
	}
	return r, cmd
}

func readFileCmd(path string) tea.Cmd {
	return func() tea.Msg {
		path = strings.TrimSpace(path)
		if strings.HasPrefix(path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, path[2:])
			}
		}
		f, err := os.Open(path)
		if err != nil {
			return fileReadMsg{path: path, err: err}
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxInput+1))
		if err == nil && len(data) > maxInput {
			err = fmt.Errorf("%s is larger than any artifact (%d KiB): is it the right file?", path, maxInput>>10)
		}
		return fileReadMsg{path: path, data: data, err: err}
	}
}

// apply runs the next operation with the validated artifact.
func (r *receiveScreen) apply() tea.Cmd {
	s, data := r.s, []byte(r.area.Value())
	switch r.kind {
	case handshake.KindNonce:
		s.nonce = r.art
		nonce := strings.TrimSpace(r.area.Value())
		if r.art != nil && len(r.art.Data) > 0 {
			nonce = strings.TrimSpace(string(r.art.Data))
		}
		return runOp(opGenerateTenant(s, nonce))
	case handshake.KindTenant:
		return runOp(opApplyTenant(s, data))
	}
	return runOp(opApplyIdentity(s, data))
}

// lines takes the artifact pasted as lines or read from a file, validates
// it as the screen does, and applies it once confirmed.
func (r *receiveScreen) lines(u *lineUI) (tea.Msg, error) {
	s, kind := r.s, r.kind
	other := s.selfRole().Other()
	u.println("")
	u.printf("Receive the %s from the %s's admin.", r.what(), other)
	u.printBanner()
	u.println("Nothing is applied until it is valid and you confirm.")
	choices := []choice{
		{keys: []string{"p"}, label: "paste it here"},
		{keys: []string{"f"}, label: "read it from a file"},
		{keys: []string{"esc"}, label: "back: another " + string(other)},
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
			return gotoPeerMsg{}, nil
		case "p":
			text, err := r.readPaste(u)
			if err != nil {
				return nil, err
			}
			r.area.SetValue(text)
			cmd = r.changed(true)
		case "f":
			path := valueOrPlaceholder(r.path)
			if err := u.ask(huh.NewInput().Title(fmt.Sprintf("File with the %s [%s]", kind, path)).Value(&path)); err != nil {
				return nil, err
			}
			cmd = readFileCmd(path)
		}
		u.println("Checking…")
		if nav, err := u.await(r, cmd); nav != nil || err != nil {
			return nav, err
		}
		switch {
		case r.err != nil:
			u.println(iconFailed + " " + oneLine(r.err.Error()))
			continue
		case r.art == nil:
			u.printf("Nothing received: paste the %s or give its file.", kind)
			continue
		}
		if r.peerInfo() {
			var b strings.Builder
			r.peerInfoView(&b, lineWidth)
			u.println(plain(b.String()))
			return u.await(r, navigate(gotoLiqo0xConfirmMsg{art: r.art, data: []byte(r.area.Value())}))
		}
		u.println(iconDone + " " + r.describe())
		if r.art.Fingerprint != "" {
			u.printf("  %s: %s (compare with the other admin)", fingerprintLabel(kind), r.art.Fingerprint)
		}
		if hasCode(r.art) {
			u.println("  " + codeLine(r.art))
		}
		if r.art.APIServer != "" {
			u.println("  API server: " + r.art.APIServer)
		}
		if !r.art.NotAfter.IsZero() {
			u.println("  certificate expires: " + plain(expiry(r.art.NotAfter, s.now())))
		}
		yes, err := u.confirm(oneLine(r.confirmText(lineWidth)), "")
		if err != nil {
			return nil, err
		}
		if yes {
			return u.await(r, r.apply())
		}
	}
}

// readPaste reads a pasted artifact: one line for a nonce, else lines up
// to an empty one.
func (r *receiveScreen) readPaste(u *lineUI) (string, error) {
	if r.kind == handshake.KindNonce {
		u.printf("Paste the %s (one line), then Return:", r.what())
	} else {
		u.printf("Paste the %s, then an empty line:", r.kind)
	}
	var b strings.Builder
	for {
		line, err := u.readLine()
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
		if r.kind == handshake.KindNonce {
			break
		}
	}
	return b.String(), nil
}

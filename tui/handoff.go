package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

type (
	savedMsg struct {
		path string
		err  error
	}
	// leaveAltScreenMsg leaves the alternate screen, then runs then.
	leaveAltScreenMsg struct{ then tea.Cmd }
	printNowMsg       struct{}
)

type handoffKeys struct {
	Copy, Save, Print, Next key.Binding
	// PeeringUser hands a restricted kubeconfig over instead (peeringuser.go).
	PeeringUser key.Binding
	// Reveal shows a Masked artifact's credential (a peer info's token).
	Reveal          key.Binding
	Confirm, Cancel key.Binding
}

func (k handoffKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Copy, k.Save, k.Print, k.Reveal, k.Next, k.PeeringUser, k.Confirm, k.Cancel}
}
func (k handoffKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Copy, k.Save, k.Print, k.Reveal, k.Next, k.PeeringUser}, {k.Confirm, k.Cancel}}
}

// handoffScreen shows an artifact for the other admin, its fingerprint and
// their exact next command, and copies, saves or prints it.
type handoffScreen struct {
	s         *session
	art       *Artifact
	keys      handoffKeys
	saving    bool
	overwrite bool // the path exists: enter again overwrites
	// savedAs is the name of the file the artifact was saved to: the
	// other admin's next commands read it under that name.
	savedAs   string
	path      textinput.Model
	status    string
	statusErr bool
	fallback  bool // the native copy failed: OSC52 was tried
	// revealed: a Masked artifact's credential is shown (r toggles).
	revealed bool
	// then is where enter goes; nil: where the handshake continues.
	then tea.Cmd
}

func newHandoffScreen(s *session, art *Artifact) *handoffScreen {
	in := textinput.New()
	in.Prompt = "save as: "
	// A placeholder, not a value: what the admin types replaces it.
	in.Placeholder = "./" + art.Kind.FileName()
	in.CharLimit = 4096
	steadyInput(&in)
	h := &handoffScreen{s: s, art: art, path: in, keys: handoffKeys{
		Copy:        key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy")),
		Save:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save to file")),
		Print:       key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "print")),
		Next:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next")),
		PeeringUser: peeringUserKey(),
		Reveal:      revealKey(false),
		Confirm:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
		Cancel:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
	if art.Kind == handshake.KindSliceRequest {
		h.keys.Next.SetHelp("enter", "request")
	}
	h.setKeys()
	return h
}

func (h *handoffScreen) setKeys() {
	for _, b := range []*key.Binding{&h.keys.Copy, &h.keys.Save, &h.keys.Print, &h.keys.Next} {
		b.SetEnabled(!h.saving)
	}
	h.keys.PeeringUser.SetEnabled(!h.saving && h.offersPeeringUser())
	h.keys.Reveal.SetEnabled(!h.saving && h.art.Masked)
	h.keys.Confirm.SetEnabled(h.saving)
	h.keys.Cancel.SetEnabled(h.saving)
	if h.s.opts.Clipboard == ClipboardOff || h.art.Sensitive {
		h.keys.Copy.SetEnabled(false)
	}
}

func (h *handoffScreen) Init() tea.Cmd     { return nil }
func (h *handoffScreen) Typing() bool      { return h.saving }
func (h *handoffScreen) Keys() help.KeyMap { return h.keys }

func (h *handoffScreen) setStatus(msg string, isErr bool) { h.status, h.statusErr = msg, isErr }

func (h *handoffScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case copiedMsg:
		if msg.err == nil {
			h.setStatus("Copied to the clipboard."+h.clipNote(), false)
			return h, nil
		}
		methods := h.s.copyMethods()
		if len(methods) > 1 && !h.fallback {
			h.fallback = true
			cmd, text, ok := osc52(h.clip())
			h.setStatus("Native clipboard failed ("+oneLine(msg.err.Error())+"). "+text, !ok)
			return h, cmd
		}
		h.setStatus("Could not copy: "+oneLine(msg.err.Error())+": use s to save or p to print", true)
		return h, nil
	case savedMsg:
		if msg.err != nil {
			if errors.Is(msg.err, fs.ErrExist) {
				h.overwrite = true
				h.setStatus(msg.path+" exists: enter again overwrites it, esc cancels", true)
				return h, nil
			}
			h.setStatus("Could not save: "+oneLine(msg.err.Error()), true)
			return h, nil
		}
		h.saving, h.overwrite = false, false
		h.savedAs = filepath.Base(msg.path)
		h.setKeys()
		h.setStatus("Saved to "+msg.path+" (mode 0600).", false)
		return h, nil
	case printNowMsg:
		return h, tea.Println(h.printed())
	case tea.KeyPressMsg:
		if h.saving {
			switch {
			case key.Matches(msg, h.keys.Cancel):
				h.saving, h.overwrite = false, false
				h.setKeys()
				h.setStatus("", false)
				return h, nil
			case key.Matches(msg, h.keys.Confirm):
				return h, saveCmd(valueOrPlaceholder(h.path), h.art.Data, h.overwrite)
			}
			var cmd tea.Cmd
			h.path, cmd = h.path.Update(msg)
			h.overwrite = false
			return h, cmd
		}
		switch {
		case key.Matches(msg, h.keys.Copy), msg.String() == "c":
			// Also when copying is off or refused: copy says why.
			return h, h.copy()
		case key.Matches(msg, h.keys.Save):
			h.saving = true
			h.setKeys()
			h.setStatus("", false)
			h.path.CursorEnd()
			return h, h.path.Focus()
		case key.Matches(msg, h.keys.Print):
			h.setStatus(h.printStatus())
			// Leave the alternate screen first, then print above the UI.
			return h, navigate(leaveAltScreenMsg{
				then: tea.Tick(50*time.Millisecond, func(time.Time) tea.Msg { return printNowMsg{} })})
		case key.Matches(msg, h.keys.Next):
			return h, h.next()
		case key.Matches(msg, h.keys.PeeringUser):
			return h, runOp(opGeneratePeeringUser(h.s))
		case key.Matches(msg, h.keys.Reveal):
			h.reveal(!h.revealed)
			return h, nil
		}
	}
	return h, nil
}

func (h *handoffScreen) copy() tea.Cmd {
	if h.art.Sensitive {
		h.setStatus("This "+string(h.art.Kind)+" carries credentials: it is never put on the clipboard. Use s to save it.", true)
		return nil
	}
	methods := h.s.copyMethods()
	if len(methods) == 0 {
		h.setStatus("Clipboard is off (--clipboard off): use s to save or p to print.", true)
		return nil
	}
	h.fallback = false
	if methods[0] == copyNative {
		h.setStatus("Copying…", false)
		return nativeCopyCmd(h.s.opts.nativeCopy, h.clip())
	}
	cmd, text, ok := osc52(h.clip())
	h.setStatus(text+h.clipNote(), !ok)
	return cmd
}

// valueOrPlaceholder is what a path field says: what was typed, else the
// default its placeholder shows.
func valueOrPlaceholder(in textinput.Model) string {
	if v := strings.TrimSpace(in.Value()); v != "" {
		return v
	}
	return in.Placeholder
}

func saveCmd(path string, data []byte, overwrite bool) tea.Cmd {
	return func() tea.Msg {
		path = strings.TrimSpace(path)
		if path == "" {
			return savedMsg{path: path, err: errors.New("give a file path")}
		}
		if strings.HasPrefix(path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, path[2:])
			}
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
		if overwrite {
			flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		}
		f, err := os.OpenFile(path, flags, 0o600)
		if err != nil {
			return savedMsg{path: path, err: err}
		}
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return savedMsg{path: path, err: err}
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return savedMsg{path: path, err: err}
		}
		return savedMsg{path: path, err: f.Close()}
	}
}

// next is where the handshake continues after the hand-off.
func (h *handoffScreen) next() tea.Cmd {
	if h.then != nil {
		return h.then
	}
	switch h.art.Kind {
	case handshake.KindNonce:
		return navigate(gotoReceiveMsg{kind: handshake.KindTenant})
	case handshake.KindTenant:
		return navigate(gotoReceiveMsg{kind: handshake.KindIdentity})
	}
	return navigate(gotoSummaryMsg{})
}

// lines prints the artifact for the other admin with its fingerprint and
// their next commands, and offers to save it to a file.
func (h *handoffScreen) lines(u *lineUI) (tea.Msg, error) {
	s, art := h.s, h.art
	other := art.Kind.Receiver()
	u.println("")
	u.printf("Send this %s to the %s's admin.", art.Kind, other)
	if art.Warning != "" {
		u.println(iconWarn + " WARNING: " + art.Warning)
	}
	u.printBanner()
	u.println(h.printable())
	u.printf("# end of the %s", art.Kind)
	if art.Fingerprint != "" {
		u.printf("%s fingerprint: %s", capitalize(fingerprintLabel(art.Kind)), art.Fingerprint)
		u.println("Compare it with the other admin out of band (phone, chat) before going on.")
	}
	if hasCode(art) {
		u.println(codeLine(art))
		u.println(sentCodeHint(art))
	}
	if art.Kind == handshake.KindIdentity && art.APIServer != "" {
		u.println("API server advertised to the consumer: " + art.APIServer)
	}
	if art.Kind == handshake.KindIdentity && !art.NotAfter.IsZero() {
		u.println("Certificate expires: " + plain(expiry(art.NotAfter, s.now())))
	}
	for _, l := range h.kindLines(s.now()) {
		u.println(plain(l))
	}
	if eq := h.equivalentView(lineWidth); eq != "" {
		u.println(plain(eq))
	}
	if err := h.offerReveal(u); err != nil {
		return nil, err
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
		h.Update(saved)
		if h.statusErr {
			u.println(iconFailed + " " + h.status)
			continue
		}
		u.println(iconDone + " " + h.status)
		break
	}
	if !h.selfContained() {
		next := h.handoff()
		u.println(next.Title())
		for _, c := range next.Commands() {
			u.println("  " + c)
		}
	}
	if h.offersPeeringUser() {
		return h.offerPeeringUser(u)
	}
	return u.await(h, h.next())
}

// selfContained: the artifact is itself the other admin's next commands
// (a ResourceSlice request), shown once, in the box.
func (h *handoffScreen) selfContained() bool { return h.art.Kind == handshake.KindSliceRequest }

func (h *handoffScreen) printable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s for the %s's admin", h.art.Kind, h.art.Kind.Receiver())
	if h.art.Fingerprint != "" {
		fmt.Fprintf(&b, " (%s %s)", fingerprintLabel(h.art.Kind), h.art.Fingerprint)
	}
	b.WriteString("\n" + strings.TrimRight(h.shown(), "\n"))
	if h.art.Sensitive {
		b.WriteString("\n# credentials masked: save it to a file to send the full " + string(h.art.Kind))
	}
	if h.art.Masked && !h.revealed {
		b.WriteString("\n# token masked: r reveals it, then p prints the whole " + string(h.art.Kind) + " (or c copies it, s saves it)")
	}
	return b.String()
}

func fingerprintLabel(k handshake.ArtifactKind) string {
	switch k {
	case handshake.KindTenant:
		return "consumer key"
	case handshake.KindIdentity:
		return "provider CA"
	}
	return "fingerprint"
}

// handoff is what the other admin runs next, IDs and the saved file's
// name filled in (the same text --batch and the step commands print).
func (h *handoffScreen) handoff() handshake.Handoff {
	return handshake.Handoff{Kind: h.art.Kind, SenderID: h.s.ownID(), ReceiverID: h.s.peerID,
		File: h.savedAs, APIServer: h.art.APIServer, SenderNamespace: h.s.self().Namespace}
}

func (h *handoffScreen) View(width, height int) string {
	s := h.s
	other := h.art.Kind.Receiver()
	var top strings.Builder
	top.WriteString(styleHeader.Render(fmt.Sprintf("Send this %s to the %s's admin", h.art.Kind, other)) + "\n")
	if h.art.Warning != "" {
		top.WriteString(warningBlock(h.art.Warning, width) + "\n")
	}
	if s.banner != "" {
		top.WriteString(styleSubtle.Render(truncate(s.banner, width)) + "\n")
	}
	var bottom strings.Builder
	if h.art.Fingerprint != "" {
		bottom.WriteString(fmt.Sprintf("%s fingerprint: %s\n", capitalize(fingerprintLabel(h.art.Kind)), styleFP.Render(h.art.Fingerprint)))
		bottom.WriteString(styleSubtle.Render("Compare it with the other admin out of band (phone, chat) before going on.") + "\n")
	}
	if hasCode(h.art) {
		bottom.WriteString(styleFP.Render(codeLine(h.art)) + "\n" + styleSubtle.Render(wrap(sentCodeHint(h.art), width)) + "\n")
	}
	if h.art.Kind == handshake.KindIdentity && h.art.APIServer != "" {
		bottom.WriteString("API server advertised to the consumer: " + h.art.APIServer + "\n")
	}
	if h.art.Kind == handshake.KindIdentity && !h.art.NotAfter.IsZero() {
		bottom.WriteString("Certificate expires: " + expiry(h.art.NotAfter, s.now()) + "\n")
	}
	for _, l := range h.kindLines(s.now()) {
		bottom.WriteString(wrap(l, width) + "\n")
	}
	bottom.WriteString(h.equivalentView(width))
	if !h.selfContained() {
		next := h.handoff()
		bottom.WriteString("\n" + styleBold.Render(wrapWords(next.Title(), width)) + "\n")
		for _, c := range next.Commands() {
			style := styleCode.Render
			if strings.HasPrefix(c, "#") {
				style = styleSubtle.Render
			}
			// Never cut a command (remarks name some): it is what the other
			// admin types.
			bottom.WriteString(indent(wrapWords(c, max(width-2, 10)), "  ", style) + "\n")
		}
	}
	if h.saving {
		h.path.SetWidth(max(width-12, 10))
		bottom.WriteString("\n" + h.path.View() + "\n")
	}
	if h.status != "" {
		st := styleStatus
		if h.statusErr {
			st = styleStatusEr
		}
		bottom.WriteString("\n" + st.Render(wrap(h.status, width)) + "\n")
	}
	avail := height - lipgloss.Height(top.String()) - lipgloss.Height(bottom.String()) - 2
	box := h.artifactBox(width, avail)
	return top.String() + box + "\n" + bottom.String()
}

// artifactBox shows the artifact, cut to the room there is.
func (h *handoffScreen) artifactBox(width, avail int) string {
	inner := max(width-4, 10)
	shown := strings.TrimRight(h.shown(), "\n")
	switch {
	case h.revealed:
		// The whole credential, wrapped: a cut one could not be read back.
		shown = ansi.Hardwrap(shown, inner, true)
	case h.selfContained():
		// Prose and commands the other admin reads whole.
		lines := strings.Split(shown, "\n")
		for i, l := range lines {
			lines[i] = wrapWords(l, inner)
		}
		shown = strings.Join(lines, "\n")
	}
	lines := strings.Split(shown, "\n")
	maxLines := max(avail-2, 1)
	extra := 0
	if len(lines) > maxLines {
		keep := max(maxLines-1, 1)
		extra = len(lines) - keep
		lines = lines[:keep]
	}
	for i, l := range lines {
		lines[i] = truncate(l, inner)
	}
	switch {
	case extra > 0 && h.art.Masked && !h.revealed:
		lines = append(lines, styleSubtle.Render(fmt.Sprintf("… %d more line(s): p prints them, s saves the whole %s", extra, h.art.Kind)))
	case extra > 0:
		lines = append(lines, styleSubtle.Render(fmt.Sprintf("… %d more line(s), %d bytes: p prints it whole, s saves it", extra, len(h.art.Data))))
	}
	return stylePanel.Width(width).Render(strings.Join(lines, "\n"))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// wrapWords wraps s at spaces only, so that no word of a command (a flag,
// a file name) is split at a hyphen; a word wider than w is cut.
func wrapWords(s string, w int) string {
	var lines []string
	for _, word := range strings.Fields(s) {
		if n := len(lines); n > 0 && lipgloss.Width(lines[n-1])+1+lipgloss.Width(word) <= w {
			lines[n-1] += " " + word
		} else {
			lines = append(lines, word)
		}
	}
	return ansi.Hardwrap(strings.Join(lines, "\n"), w, true)
}

// indent prefixes every line of s, trimming the padding wrap adds.
func indent(s, prefix string, style func(...string) string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + style(strings.TrimRight(l, " "))
	}
	return strings.Join(lines, "\n")
}

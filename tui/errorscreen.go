package tui

import (
	"context"
	"errors"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

type errorKeys struct {
	Retry, Back key.Binding
	// Reissue deletes a Liqo 0.x provider's identity and retries, once
	// Yes confirms it (liqo0x_error.go).
	Reissue, Yes, No key.Binding
}

func (k errorKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Yes, k.No, k.Retry, k.Reissue, k.Back}
}
func (k errorKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Retry, k.Reissue, k.Back}, {k.Yes, k.No}}
}

// errorScreen says what failed, what to do, and offers to retry.
type errorScreen struct {
	s     *session
	err   error
	retry tea.Cmd
	keys  errorKeys
	// reissue runs the Liqo 0.x authentication again with Reissue;
	// confirmReissue: d was pressed, y confirms.
	reissue        tea.Cmd
	confirmReissue bool
}

func newErrorScreen(s *session, err error, retry tea.Cmd) *errorScreen {
	k := errorKeys{
		Retry: key.NewBinding(key.WithKeys("r", "enter"), key.WithHelp("r", "retry")),
		Back:  key.NewBinding(key.WithKeys("b", "esc"), key.WithHelp("b", "back to detection")),
	}
	k.Reissue, k.Yes, k.No = reissueKeys()
	if retry == nil {
		k.Retry.SetEnabled(false)
	}
	return &errorScreen{s: s, err: err, retry: retry, keys: k}
}

func (e *errorScreen) Init() tea.Cmd { return nil }
func (e *errorScreen) Typing() bool  { return false }
func (e *errorScreen) Keys() help.KeyMap {
	k := e.keys
	k.Reissue.SetEnabled(e.reissue != nil && !e.confirmReissue)
	k.Yes.SetEnabled(e.confirmReissue)
	k.No.SetEnabled(e.confirmReissue)
	if e.confirmReissue {
		k.Retry.SetEnabled(false)
		k.Back.SetEnabled(false)
	}
	return k
}

func (e *errorScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if e.confirmReissue {
			return e, pressed(k, e.confirmActions())
		}
		return e, pressed(k, e.actions())
	}
	return e, nil
}

// actions: retry (when there is a retry), reissue (a Liqo 0.x identity
// already issued, automated mode), back to detection.
func (e *errorScreen) actions() []action {
	k := e.Keys().(errorKeys)
	return []action{
		{k.Retry, func() tea.Cmd { return e.retry }},
		{k.Reissue, func() tea.Cmd { e.confirmReissue = true; return nil }},
		{k.Back, func() tea.Cmd { return navigate(gotoDetectMsg{}) }},
	}
}

// lines says what failed and what to do, and offers the actions.
func (e *errorScreen) lines(u *lineUI) (tea.Msg, error) {
	reason, hint := explain(e.err)
	u.println("")
	u.logLine("ERRO", handshake.NoScope, "Something failed: "+reason)
	u.println("What to do: " + hint)
	if e.reissue != nil {
		u.println(plain(e.reissueOffer()))
	}
	for {
		cmd, quit, err := u.offer("What next?", e.actions(), true)
		if quit != nil || err != nil {
			return quit, err
		}
		if e.confirmReissue {
			yes, err := u.confirm(reissueTitle, e.reissueQuestion())
			if err != nil {
				return nil, err
			}
			cmd = e.answerReissue(yes)
		}
		if nav, err := u.await(e, cmd); nav != nil || err != nil {
			return nav, err
		}
	}
}

// explain turns an error into a reason and what to do.
func explain(err error) (reason, hint string) {
	var f *Failure
	if errors.As(err, &f) {
		reason, hint = f.Reason, f.Hint
		if f.Timeout && hint == "" {
			hint = "the step did not finish in time: check the controllers and the network, or raise --timeout, then retry"
		}
	} else {
		reason = err.Error()
	}
	if hint == "" {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			hint = "the operation did not finish in time (--timeout): check the clusters and retry"
		case errors.Is(err, context.Canceled):
			hint = "the operation was cancelled"
		default:
			hint = "fix the cause above and retry: every step is re-runnable and finds the work already done"
		}
	}
	return reason, hint
}

func (e *errorScreen) View(width, height int) string {
	reason, hint := explain(e.err)
	inner := max(width-4, 20)
	var b strings.Builder
	b.WriteString(styleErr.Render(iconFailed+" Something failed") + "\n\n")
	// At spaces only: a hint names objects the admin copies.
	b.WriteString(styleBold.Render("Reason") + "\n" + wrapWords(reason, inner) + "\n\n")
	b.WriteString(styleBold.Render("What to do") + "\n" + wrapWords(hint, inner))
	if e.reissue != nil {
		b.WriteString("\n\n" + wrapWords(e.reissueOffer(), inner))
	}
	if e.confirmReissue {
		return e.reissueModal(width, height)
	}
	return styleErrPanel.Width(width).Render(b.String())
}

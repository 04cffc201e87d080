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
}

func (k errorKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Retry, k.Back} }
func (k errorKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Retry, k.Back}} }

// errorScreen says what failed, what to do, and offers to retry.
type errorScreen struct {
	s     *session
	err   error
	retry tea.Cmd
	keys  errorKeys
}

func newErrorScreen(s *session, err error, retry tea.Cmd) *errorScreen {
	k := errorKeys{
		Retry: key.NewBinding(key.WithKeys("r", "enter"), key.WithHelp("r", "retry")),
		Back:  key.NewBinding(key.WithKeys("b", "esc"), key.WithHelp("b", "back to detection")),
	}
	if retry == nil {
		k.Retry.SetEnabled(false)
	}
	return &errorScreen{s: s, err: err, retry: retry, keys: k}
}

func (e *errorScreen) Init() tea.Cmd     { return nil }
func (e *errorScreen) Typing() bool      { return false }
func (e *errorScreen) Keys() help.KeyMap { return e.keys }

func (e *errorScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return e, pressed(k, e.actions())
	}
	return e, nil
}

// actions: retry (when there is a retry), back to detection.
func (e *errorScreen) actions() []action {
	return []action{
		{e.keys.Retry, func() tea.Cmd { return e.retry }},
		{e.keys.Back, func() tea.Cmd { return navigate(gotoDetectMsg{}) }},
	}
}

// lines says what failed and what to do, and offers the actions.
func (e *errorScreen) lines(u *lineUI) (tea.Msg, error) {
	reason, hint := explain(e.err)
	u.println("")
	u.logLine("ERRO", handshake.NoScope, "Something failed: "+reason)
	u.println("What to do: " + hint)
	for {
		cmd, quit, err := u.offer("What next?", e.actions(), true)
		if quit != nil || err != nil {
			return quit, err
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
	b.WriteString(styleBold.Render("Reason") + "\n" + wrap(reason, inner) + "\n\n")
	b.WriteString(styleBold.Render("What to do") + "\n" + wrap(hint, inner))
	return styleErrPanel.Width(width).Render(b.String())
}

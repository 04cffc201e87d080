package tui

import (
	"fmt"
	"runtime/debug"

	tea "charm.land/bubbletea/v2"
)

// PanicError is a panic of the wizard's own code (a backend call, a flow,
// a screen) recovered and turned into an error: the wizard shows it on the
// error screen instead of dying, and its terminal stays usable.
type PanicError struct {
	What  string // what panicked: "the handshake", "a background task"
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error: %s panicked: %v (this is a bug: please report it)", e.What, e.Value)
}

func recovered(what string, v any) *PanicError {
	return &PanicError{What: what, Value: v, Stack: debug.Stack()}
}

// guard runs cmd with a recover: a panic becomes the error screen (bubbletea
// would otherwise end the program on it). The commands of a batch it
// returns are guarded too; tea.Sequence's (unexported) message is not.
func guard(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if v := recover(); v != nil {
				msg = gotoErrorMsg{err: recovered("a background task", v)}
			}
		}()
		msg = cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			guarded := make(tea.BatchMsg, len(b))
			for i, c := range b {
				guarded[i] = guard(c)
			}
			msg = guarded
		}
		return msg
	}
}

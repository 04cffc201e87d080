package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// action is one of a screen's keys and what it does: the screen's Update
// runs it when the key is pressed, the line mode when its key is typed at
// the screen's menu (accessible.go), so both do the same.
type action struct {
	key key.Binding
	do  func() tea.Cmd
}

// pressed runs the action whose enabled key msg is (nil if none).
func pressed(msg tea.KeyPressMsg, actions []action) tea.Cmd {
	for _, a := range actions {
		if key.Matches(msg, a.key) {
			return a.do()
		}
	}
	return nil
}

package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The full help (? or f1) shows, besides the screen's keys, what the short
// bar leaves out: how to quit at any time and, in a text field, the
// editing keys of bubbles' text inputs.

// helpKey is the help key the bar offers: ? types into a text field, so
// there it is f1.
func (m *Model) helpKey() key.Binding {
	k := m.keys.Help
	if m.cur.Typing() {
		k.SetHelp("f1", k.Help().Desc)
	}
	if m.help.ShowAll {
		k.SetHelp(k.Help().Key, "fewer keys")
	}
	return k
}

// helpPressed tells whether msg toggles the full help.
func (m *Model) helpPressed(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, m.keys.Help) && (!m.cur.Typing() || msg.String() == "f1")
}

// fullHelpView is the screen's columns, then the global one and, when a
// text field has the keys, its editing keys: on one row when they fit,
// else the latter on a row of their own (none is cut).
func (m *Model) fullHelpView() string {
	screen := m.cur.Keys().FullHelp()
	wide := m.help
	wide.SetWidth(0)
	if all := wide.FullHelpView(append(append([][]key.Binding{}, screen...), m.moreHelp()...)); lipgloss.Width(all) <= m.help.Width() {
		return all
	}
	return m.help.FullHelpView(screen) + "\n" + m.help.FullHelpView(m.moreHelp())
}

// moreHelp: how to quit (ctrl+c works in a text field too), the help key,
// and in a text field the editing keys.
func (m *Model) moreHelp() [][]key.Binding {
	forceQuit := key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit, also in a text field"))
	if m.cur.Typing() {
		return [][]key.Binding{{forceQuit, m.helpKey()}, editingKeys}
	}
	return [][]key.Binding{{m.keys.Quit, forceQuit, m.helpKey()}}
}

// editingKeys are bubbles' textinput and textarea defaults.
var editingKeys = []key.Binding{
	key.NewBinding(key.WithKeys("ctrl+a"), key.WithHelp("home/ctrl+a", "line start")),
	key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("end/ctrl+e", "line end")),
	key.NewBinding(key.WithKeys("ctrl+w"), key.WithHelp("ctrl+w", "delete a word")),
	key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "delete to line start")),
	key.NewBinding(key.WithKeys("ctrl+k"), key.WithHelp("ctrl+k", "delete to line end")),
}

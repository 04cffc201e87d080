package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// All styles of the wizard live here. Colours are the 16 basic ANSI ones so
// that the terminal's own palette (light or dark) applies; with NO_COLOR the
// program runs with the Ascii colour profile, which drops them.
var (
	colAccent  = lipgloss.Color("6") // cyan
	colOK      = lipgloss.Color("2") // green
	colWarn    = lipgloss.Color("3") // yellow
	colErr     = lipgloss.Color("1") // red
	colFaint   = lipgloss.Color("8") // bright black
	colHiBlack = lipgloss.Color("7")

	styleTitle    = lipgloss.NewStyle().Bold(true).Foreground(colAccent)
	styleHeader   = lipgloss.NewStyle().Bold(true)
	styleSubtle   = lipgloss.NewStyle().Foreground(colFaint)
	styleOK       = lipgloss.NewStyle().Foreground(colOK)
	styleWarn     = lipgloss.NewStyle().Foreground(colWarn)
	styleErr      = lipgloss.NewStyle().Foreground(colErr)
	styleBold     = lipgloss.NewStyle().Bold(true)
	styleKey      = lipgloss.NewStyle().Bold(true).Foreground(colAccent)
	styleCode     = lipgloss.NewStyle().Foreground(colHiBlack)
	stylePanel    = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colFaint).Padding(0, 1)
	styleErrPanel = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colErr).Padding(0, 1)
	styleModal    = lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(colWarn).Padding(1, 2)
	styleFP       = lipgloss.NewStyle().Bold(true).Foreground(colWarn)
	styleStatus   = lipgloss.NewStyle().Foreground(colOK)
	styleStatusEr = lipgloss.NewStyle().Foreground(colErr)
)

// Icons of the step list.
const (
	iconPending = "○"
	iconDone    = "✓"
	iconFailed  = "✗"
	iconWarn    = "⚠"
	iconInfo    = "•"
)

func newHelp() help.Model {
	h := help.New()
	h.Styles = help.DefaultStyles(true)
	h.Styles.ShortKey = styleKey
	h.Styles.FullKey = styleKey
	return h
}

// steadyInput and steadyArea turn cursor blinking off: a blinking cursor
// redraws the screen twice a second, noisy over SSH and for screen readers.
func steadyInput(in *textinput.Model) {
	st := in.Styles()
	st.Cursor.Blink = false
	in.SetStyles(st)
}

func steadyArea(ta *textarea.Model) {
	st := ta.Styles()
	st.Cursor.Blink = false
	ta.SetStyles(st)
}

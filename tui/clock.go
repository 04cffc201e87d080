package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// clockTickMsg redraws a screen that shows times relative to now ("5s
// ago"): a terminal is redrawn only when a message arrives. gen tells the
// screen that asked apart from one shown before.
type clockTickMsg struct{ gen int }

// clockEvery is how often: the finest unit those times show.
const clockEvery = time.Second

// clock starts the ticks of a new screen and returns its generation.
func (s *session) clock() (int, tea.Cmd) {
	s.clockGen++
	return s.clockGen, s.clockTick(s.clockGen)
}

// clockTick is the next tick of generation gen.
func (s *session) clockTick(gen int) tea.Cmd {
	every := s.opts.clockEvery
	if every <= 0 {
		every = clockEvery
	}
	return tea.Tick(every, func(time.Time) tea.Msg { return clockTickMsg{gen: gen} })
}

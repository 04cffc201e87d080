package tui

import (
	"context"

	"charm.land/bubbles/v2/cursor"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

// runCmd runs cmd to completion outside a tea.Program, as the program
// would: the commands of a tea.Batch run concurrently, and every message
// they return is handed to deliver, on the caller's goroutine, which may
// return the next command to run. It returns once nothing is left to run,
// or with ctx's error when ctx ends first (what still runs is abandoned).
// The line mode (accessible.go) and the tests' harness both run the
// screens' commands with it.
//
// tea.Sequence's message has an unexported type: deliver gets it as it is.
// The wizard's own commands do not use tea.Sequence (huh's Form.Init does:
// the line mode runs huh's forms as accessible prompts, not as models).
func runCmd(ctx context.Context, cmd tea.Cmd, deliver func(tea.Msg) tea.Cmd) error {
	results := make(chan tea.Msg)
	pending := 0
	launch := func(c tea.Cmd) {
		if c == nil {
			return
		}
		pending++
		go func() {
			msg := guard(c)() // a panic becomes the error screen
			select {
			case results <- msg:
			case <-ctx.Done():
			}
		}()
	}
	launch(cmd)
	for pending > 0 {
		select {
		case msg := <-results:
			pending--
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					launch(c)
				}
			default:
				launch(deliver(msg))
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// animation tells the messages that only animate a screen (spinner ticks,
// cursor blinks, clock ticks): fed back, they ask for the next frame
// forever.
func animation(msg tea.Msg) bool {
	switch msg.(type) {
	case spinner.TickMsg, cursor.BlinkMsg, clockTickMsg:
		return true
	}
	return false
}

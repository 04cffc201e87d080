package tui

import (
	"errors"
	"testing"
)

// A backend call that panics in a flow (the phase goroutine, outside
// bubbletea's recover) ends on the error screen, which names the panic and
// offers to retry; the wizard keeps running.
func TestPanickingFlowShowsErrorScreen(t *testing.T) {
	f := newFake()
	f.panicOp = map[string]any{"Authenticate": "nil map in the flow"}
	h := newHarness(t, f, both())
	h.key("enter")
	e := screenIs[*errorScreen](t, h)
	var p *PanicError
	if !errors.As(e.err, &p) || len(p.Stack) == 0 {
		t.Fatalf("error %v: want a PanicError with its stack", e.err)
	}
	h.mustSee("internal error", "panicked: nil map in the flow", "r retry")
	delete(f.panicOp, "Authenticate")
	h.key("r")
	screenIs[*summaryScreen](t, h)
}

// A backend call that panics in a tea.Cmd (the detection probes) ends on
// the error screen too, instead of bubbletea ending the program.
func TestPanickingCommandShowsErrorScreen(t *testing.T) {
	f := newFake()
	f.panicOp = map[string]any{"Probe": errors.New("probe exploded")}
	h := newHarness(t, f, both())
	screenIs[*errorScreen](t, h)
	h.mustSee("internal error: a background task panicked: probe exploded")
	if h.quit {
		t.Fatal("the wizard quit")
	}
	delete(f.panicOp, "Probe")
	h.key("b")
	screenIs[*detectScreen](t, h)
}

// A panic in Update itself (here: an operation without phases, which the
// run screen indexes when it starts) is recovered by the wizard's Update.
func TestPanickingUpdateShowsErrorScreen(t *testing.T) {
	h := newHarness(t, newFake(), both())
	h.send(gotoRunMsg{op: operation{Title: "nothing"}})
	screenIs[*errorScreen](t, h)
	h.mustSee("internal error: the wizard panicked", "index out of range")
}

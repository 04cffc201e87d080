package handshake

import "time"

// EventKind classifies progress events.
type EventKind int

const (
	// StepStarted: a step began; Message is its spinner text.
	StepStarted EventKind = iota + 1
	// StepDone: a step succeeded; Message is its success line.
	StepDone
	// StepFailed: a step failed; Message is its failure line, Err the cause.
	StepFailed
	// ClusterEvent: a Kubernetes Event about an object the step waits on.
	ClusterEvent
	// Note: information worth showing (which engine serves a side, ...).
	Note
)

// Event is one progress report of a running flow.
type Event struct {
	Kind    EventKind
	Step    string // step ID, e.g. "wait-tenant-status"
	Index   int    // 1-based position in the flow (0 for notes)
	Total   int    // number of steps in the flow
	Scope   Scope
	Message string
	// Command is the equivalent command for the step (kubectl/liqoctl).
	Command string
	// Reason and Warning describe a ClusterEvent.
	Reason  string
	Warning bool
	Err     error
	Elapsed time.Duration
	Time    time.Time
}

// Sink receives events. Flows call it from the goroutine that runs a step
// and from the goroutines that watch Kubernetes Events, so a Sink must be
// safe for concurrent use and must not block for long.
type Sink func(Event)

// Discard is a Sink that drops every event.
func Discard(Event) {}

// Package flows is the handshake as steps: the automated flow over two
// clusters, the per-role manual steps, and unauthenticate. It emits typed
// progress events and leaves rendering to the front-ends (wizard, batch).
package flows

import "time"

// Scope says which cluster a step acts on, as liqoctl's (local)/(remote):
// local is the consumer, remote the provider in the automated flow; in the
// manual steps local is the cluster of the one kubeconfig given.
type Scope string

const (
	NoScope Scope = ""
	Local   Scope = "local"
	Remote  Scope = "remote"
)

// EventKind classifies progress events.
type EventKind int

const (
	// StepStarted: a step began; Message is its spinner text.
	StepStarted EventKind = iota
	// StepDone: a step succeeded; Message is its success line.
	StepDone
	// StepFailed: a step failed; Message is its failure line, Err the cause.
	StepFailed
	// ClusterEvent: a Kubernetes Event about an object the step waits on.
	ClusterEvent
	// Note: information worth showing (which engine serves a side, ...).
	Note
)

// Event is one progress report.
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

// Sink receives events; it must not block for long.
type Sink func(Event)

// Discard is a Sink that drops every event.
func Discard(Event) {}

package cmd

import (
	"errors"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// sink renders flow events as liqoctl-style lines on stderr.
func (p *Printer) sink(ev handshake.Event) {
	scope := handshake.Scope(ev.Scope)
	switch ev.Kind {
	case handshake.StepDone, handshake.Note:
		p.Info(scope, "%s", ev.Message)
	case handshake.StepFailed:
		p.Error(scope, "%s", ev.Message)
	case handshake.ClusterEvent:
		if ev.Warning {
			p.Warn(scope, "Event %s: %s", ev.Reason, ev.Message)
		}
	}
}

// alreadyReported tells whether the error was printed as a failed step.
func alreadyReported(err error) bool {
	var se *flows.StepError
	return errors.As(err, &se)
}

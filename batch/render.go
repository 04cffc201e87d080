package batch

import (
	"errors"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// sink renders flow events as liqoctl-style lines on stderr.
func (p *Printer) sink(ev flows.Event) {
	scope := Scope(ev.Scope)
	switch ev.Kind {
	case flows.StepDone, flows.Note:
		p.Info(scope, "%s", ev.Message)
	case flows.StepFailed:
		p.Error(scope, "%s", ev.Message)
	case flows.ClusterEvent:
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

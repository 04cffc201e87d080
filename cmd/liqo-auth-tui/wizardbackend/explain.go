package wizardbackend

import (
	"context"
	"errors"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func explainScoped(scope handshake.Scope, err error) error {
	e := explainErr(err)
	var f *tui.Failure
	if errors.As(e, &f) {
		f.Scope = scope
		f.Reason = "(" + string(scope) + ") " + f.Reason
	}
	return e
}

func explainErr(err error) error {
	if err == nil {
		return nil
	}
	f := &tui.Failure{Reason: err.Error(), Err: err}
	var se *flows.StepError
	if errors.As(err, &se) {
		f.Reason, f.Scope = se.Line, se.Scope
	}
	var warn *flows.WarningError
	var reach *kube.ReachError
	switch {
	case errors.As(err, &warn):
		f.Hint = warn.Hint
	case errors.As(err, &reach):
		f.Hint = reach.Hint
		f.Timeout = reach.Class == kube.FailureTimeout
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, kube.ErrWaitTimeout) {
		f.Timeout = true
		if f.Hint == "" {
			f.Hint = "a wait ran into its timeout: check that the controllers run (the wizard starts in-process ones when a cluster has none) and the events above, then retry; raise --timeout for slow clusters"
		}
	}
	return f
}

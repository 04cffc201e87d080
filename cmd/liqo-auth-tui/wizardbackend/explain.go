package wizardbackend

import (
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// explainScoped is explainErr for a failure about one of the two clusters.
func explainScoped(scope handshake.Scope, err error) error {
	if err == nil {
		return nil
	}
	f := failureOf(err)
	f.Scope = scope
	f.Reason = scope.Prefix() + f.Reason
	return f
}

// explainErr is flows.Explain as the wizard shows a failure (nil for nil).
func explainErr(err error) error {
	if err == nil {
		return nil
	}
	return failureOf(err)
}

func failureOf(err error) *tui.Failure {
	e := flows.Explain(err)
	return &tui.Failure{Reason: e.Reason, Hint: e.Hint, Scope: e.Scope, Timeout: e.Timeout, AlreadyIssued: e.AlreadyIssued, Err: err}
}

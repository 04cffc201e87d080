package flows

import (
	"context"
	"errors"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// waitTimeoutHint is the advice after a wait ran out of time.
const waitTimeoutHint = "a wait ran into its timeout: check that the controllers run (the wizard starts in-process ones when a cluster has none) " +
	"and the events above, then retry; raise --timeout for slow clusters"

// liqo0xHints say what to do about each refusal of a 0.x provider.
var liqo0xHints = map[kliqo0x.Refusal]string{
	kliqo0x.WrongToken: "copy the peer info again on the provider (it changes when Secret auth-token is re-created); nothing was written",
	kliqo0x.AlreadyIssued: "a Liqo 0.x provider issues one identity per cluster ID: choose to reissue (with the provider's kubeconfig) " +
		"or ask its admin to delete Secret liqo-remote-certificate in this consumer's tenant namespace there",
	kliqo0x.Unreachable:  "the consumer must reach the provider's auth URL: check the address and firewalls, or give the provider's auth URL (--auth-url)",
	kliqo0x.Incompatible: handshake.Liqo03And04Incompatible,
}

// Explain turns any error of a flow into the Failure an admin reads (nil
// for nil).
func Explain(err error) *handshake.Failure {
	if err == nil {
		return nil
	}
	e := &handshake.Failure{Reason: err.Error(), Err: err}
	var se *StepError
	if errors.As(err, &se) {
		e.Reason, e.Scope = se.Line, se.Scope
	}
	var scoped *ScopedError
	if e.Scope == handshake.NoScope && errors.As(err, &scoped) {
		e.Scope = scoped.Scope
	}
	var warn *WarningError
	var reach *kube.ReachError
	var hinted interface{ Hint() string }
	var install *ControllerInstallError
	switch {
	case errors.As(err, &install):
		// Its own advice after the cause's, apart from the line.
		e.Hint = install.Hint()
		e.Reason = strings.Replace(e.Reason, install.Error(), Explain(install.Err).Reason, 1)
	case errors.As(err, &warn):
		e.Hint = warn.Hint
	case errors.As(err, &reach):
		e.Hint = reach.Hint
	case errors.As(err, &hinted):
		// An error that knows what to do about it (SliceUnansweredError):
		// its message ends with the hint, for the commands; the wizard
		// shows the hint apart.
		e.Hint = hinted.Hint()
		e.Reason = strings.Replace(e.Reason, hintSeparator+e.Hint, "", 1)
	}
	e.Timeout = IsTimeout(err)
	if e.Hint == "" && waitTimedOut(err) {
		e.Hint = waitTimeoutHint
	}
	if r := liqo0xRefusal(err); r != "" {
		e.AlreadyIssued = r == kliqo0x.AlreadyIssued
		if hint := liqo0xHints[r]; hint != "" {
			e.Hint = hint
		}
	}
	return e
}

// IsTimeout tells whether err is a wait or a request that ran out of time.
func IsTimeout(err error) bool {
	var reach *kube.ReachError
	return waitTimedOut(err) || errors.As(err, &reach) && reach.Class == kube.FailureTimeout
}

// waitTimedOut: a wait or the command's own deadline ran out (not a
// request that timed out on the way to the server).
func waitTimedOut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, kube.ErrWaitTimeout)
}

func liqo0xRefusal(err error) kliqo0x.Refusal {
	var refused *liqo0x.RefusedError
	var authErr *kliqo0x.AuthError
	var failure *kliqo0x.AuthFailure
	switch {
	case errors.As(err, &refused):
		return refused.Refusal
	case errors.As(err, &authErr):
		return authErr.Refusal
	case errors.As(err, &failure):
		return failure.Refusal
	}
	return ""
}

// Reached names, in an error of a request to c that failed on the way
// (network, TLS, credentials), the server and what failed.
func Reached(c *Cluster, err error) error {
	if class, _ := kube.ClassifyError(err); class != kube.FailureOther {
		return c.Reach(err)
	}
	return err
}

// Failure is a failed command's result on stdout with -o json|yaml: the
// line that failed and what to do about it.
type Failure struct {
	Error   string          `json:"error"`
	Hint    string          `json:"hint"`
	Scope   handshake.Scope `json:"scope,omitempty"`
	Timeout bool            `json:"timeout,omitempty"`
}

// FailureOf is err explained, as the JSON of a failed command (nil for nil).
func FailureOf(err error) *Failure {
	e := Explain(err)
	if e == nil {
		return nil
	}
	return &Failure{Error: e.Reason, Hint: e.Hint, Scope: e.Scope, Timeout: e.Timeout}
}

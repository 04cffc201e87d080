package flows

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// unservedGrace bounds the wait for the nonce on a provider whose
// controller this kubeconfig cannot see (EngineControllerAssumed: a
// peering user may read neither the controller's Lease nor Events). A
// controller that runs fills the nonce within a second of the Secret's
// creation, so a nonce still missing after it means that nothing serves
// the provider; waiting the whole step timeout would not change that.
var unservedGrace = 10 * time.Second

// errGraceOver ends the short first wait of unservedNonceWait.
var errGraceOver = errors.New("grace period over")

// UnservedError is a provider on which nothing created the nonce within
// the grace period: no controller serves it. It is not a timeout: waiting
// longer does not help, its admin must act.
type UnservedError struct {
	ProviderID, Server string
	Waited             time.Duration
}

func (e *UnservedError) Error() string {
	return fmt.Sprintf("nothing on provider %s (%s) created the nonce within %s: no controller seems to serve it "+
		"(this kubeconfig may not read its Lease nor its Events to tell)", e.ProviderID, e.Server, e.Waited) + hintSeparator + e.Hint()
}

// Hint says what the provider's admin runs.
func (e *UnservedError) Hint() string {
	return "its admin runs `liqo-auth-tui install controller` on the provider (or installs Liqo there); " +
		"then run this command again: it resumes where it stopped"
}

// unservedNonceWait wraps the nonce wait of the automated flow: when what
// serves the provider could not be checked (engine()), the wait gets
// unservedGrace first, and a nonce still missing then fails the step with
// an UnservedError instead of running into the step timeout.
func unservedNonceWait(s Step, engine func() Engine, providerID func() string, server string) Step {
	wait := s.Run
	s.Run = func(ctx context.Context) error {
		if engine() != EngineControllerAssumed {
			return wait(ctx)
		}
		// Whether the grace ends before the step's own deadline: a wait
		// may then report its timeout a moment before the grace is over
		// (kube.WaitFor's outOfTime: client-go's rate limiter refuses a
		// request that would end after the deadline).
		deadline, bounded := ctx.Deadline()
		graceFirst := !bounded || time.Now().Add(unservedGrace).Before(deadline)
		grace, cancel := context.WithTimeoutCause(ctx, unservedGrace, errGraceOver)
		defer cancel()
		err := wait(grace)
		over := errors.Is(context.Cause(grace), errGraceOver) || graceFirst && errors.Is(err, kube.ErrWaitTimeout)
		if err != nil && ctx.Err() == nil && over {
			return &UnservedError{ProviderID: providerID(), Server: server, Waited: unservedGrace}
		}
		return err
	}
	return s
}

// Package step runs a flow: its steps in order, each reported to a
// handshake.Sink, stopping at the first failure. Every flows package builds
// its flows of these steps.
package step

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Step is one unit of a flow. Run must be idempotent: re-running a flow
// re-runs every step and finds the work done.
type Step struct {
	ID      string
	Scope   handshake.Scope
	Title   string // spinner text: "Waiting for nonce to be generated"
	Success string // success line: "Nonce generated successfully"
	// Outcome, when set, builds the success line once Run succeeded, so
	// that it can name what Run found.
	Outcome func() string
	Failure string // failure prefix: "Failed waiting for nonce to be generated"
	Command string // equivalent command, for the "what is this doing" panel
	// Timeout bounds the step (0 = only the flow's context).
	Timeout time.Duration
	Run     func(ctx context.Context) error
}

// StepError is a step failure; front-ends have already been told about it
// through a StepFailed event.
type StepError struct {
	Step  string
	Scope handshake.Scope
	Line  string // "Failed waiting for ...: cause"
	Err   error
}

func (e *StepError) Error() string { return e.Line }
func (e *StepError) Unwrap() error { return e.Err }

// One runs one step as a flow of one: the operations that are a single
// step (init, install, verify) report like the steps of a flow.
func One(ctx context.Context, sink handshake.Sink, s Step) error {
	return Run(ctx, sink, []Step{s})
}

// Run executes steps in order, reporting each to sink, and stops at the
// first failure.
func Run(ctx context.Context, sink handshake.Sink, steps []Step) error {
	if sink == nil {
		sink = handshake.Discard
	}
	// In-process controllers started by a step fail the flow's context,
	// with their error as the cause, when they stop later (Fail).
	ctx, stop := Failable(ctx)
	defer stop()
	for i, s := range steps {
		ev := handshake.Event{Step: s.ID, Index: i + 1, Total: len(steps), Scope: s.Scope, Command: s.Command}
		start := time.Now()
		ev.Kind, ev.Message, ev.Time = handshake.StepStarted, s.Title, start
		sink(ev)
		err := runOne(ctx, s)
		ev.Elapsed, ev.Time = time.Since(start), time.Now()
		if err != nil {
			ev.Kind, ev.Err = handshake.StepFailed, err
			ev.Message = fmt.Sprintf("%s: %v", s.Failure, err)
			sink(ev)
			return &StepError{Step: s.ID, Scope: s.Scope, Line: ev.Message, Err: err}
		}
		ev.Kind, ev.Message = handshake.StepDone, s.Success
		if s.Outcome != nil {
			ev.Message = s.Outcome()
		}
		sink(ev)
	}
	return nil
}

func runOne(ctx context.Context, s Step) error {
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.Timeout, errStepTimeout)
		defer cancel()
	}
	err := shortenRequestError(s.Run(ctx))
	if failed := (*flowFailure)(nil); errors.As(context.Cause(ctx), &failed) && (err != nil || ctx.Err() != nil) {
		return failed.err // the waits saw only their context end: name why
	}
	if err != nil && errors.Is(context.Cause(ctx), errStepTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (step timeout %s)", err, handshake.HumanDuration(s.Timeout))
	}
	return err
}

var errStepTimeout = errors.New("step timeout")

// shortenRequestError renders a request that got no answer from its API
// server (refused, connection lost, timed out: client-go's *url.Error) as
// the server and the class with a hint, like the reachability checks do,
// instead of client-go's chain with the full URL and query; what the step
// was doing stays in front. A server that restarts mid-step otherwise
// fails it with a line of several hundred characters.
func shortenRequestError(err error) error {
	var urlErr *url.Error
	var reach *kube.ReachError
	if err == nil || !errors.As(err, &urlErr) || errors.As(err, &reach) {
		return err
	}
	// Only a line that ends with client-go's own (an error that said it in
	// its words, as a Liqo 0.x auth server's, stays as it is).
	if !strings.HasSuffix(err.Error(), urlErr.Error()) {
		return err
	}
	u, perr := url.Parse(urlErr.URL)
	if perr != nil || u.Host == "" {
		return err
	}
	r := kube.Reach(u.Scheme+"://"+u.Host, err)
	if r.(*kube.ReachError).Class == kube.FailureOther {
		return err
	}
	doing := strings.TrimSuffix(err.Error(), urlErr.Error())
	return &requestError{line: doing + r.Error(), err: r}
}

// requestError is an error whose line was shortened; it unwraps to the
// ReachError (hence to client-go's error).
type requestError struct {
	line string
	err  error
}

func (e *requestError) Error() string { return e.line }
func (e *requestError) Unwrap() error { return e.err }

// Failable returns a context that Fail can end with a cause, and the
// function that releases it.
func Failable(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	return context.WithValue(ctx, failKey{}, cancel), func() { cancel(nil) }
}

// Fail ends the flow whose context ctx is (made by Failable) with err: its
// current step fails at once with err instead of waiting out its wait.
// It reports whether ctx belongs to such a flow.
func Fail(ctx context.Context, err error) bool {
	cancel, ok := ctx.Value(failKey{}).(context.CancelCauseFunc)
	if ok {
		cancel(&flowFailure{err})
	}
	return ok
}

// CanFail reports whether Fail can end ctx.
func CanFail(ctx context.Context) bool {
	_, ok := ctx.Value(failKey{}).(context.CancelCauseFunc)
	return ok
}

// failKey keys, in the context of a flow's steps, the function that ends
// the flow's context with a cause.
type failKey struct{}

// flowFailure is the cause Fail gives the flow's context.
type flowFailure struct{ err error }

func (f *flowFailure) Error() string { return f.err.Error() }
func (f *flowFailure) Unwrap() error { return f.err }

// Scoped prefixes err with the scope's "(local) "/"(remote) " (nil stays nil).
func Scoped(s handshake.Scope, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s%w", s.Prefix(), err)
}

// OrDiscard is sink, or a sink that drops every event.
func OrDiscard(sink handshake.Sink) handshake.Sink {
	if sink == nil {
		return handshake.Discard
	}
	return sink
}

// Changed reports whether any change did something.
func Changed(changes []kube.Change) bool {
	for _, ch := range changes {
		if ch.Action != kube.Unchanged {
			return true
		}
	}
	return false
}

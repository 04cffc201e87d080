package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
)

// Step is one unit of a flow (flows/internal/step runs them).
type Step = step.Step

// StepError is a step failure; front-ends have already been told about it
// through a StepFailed event.
type StepError = step.StepError

// RunStep runs one step as a flow of one: the operations that are a single
// step (init, install, verify) report like the steps of a flow.
func RunStep(ctx context.Context, sink handshake.Sink, s Step) error {
	return step.One(ctx, sink, s)
}

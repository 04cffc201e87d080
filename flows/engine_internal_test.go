package flows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
)

// In-process controllers that fail after their step (the Lease lost) end
// the flow's context with their error as the cause: the step under way,
// here a long wait, fails at once with it, not when its timeout runs out.
func TestEngineFailureFailsCurrentStepAtOnce(t *testing.T) {
	engineErr := &EngineError{Role: handshake.RoleProvider, Server: "https://provider:6443", Err: errors.New("controller: lost the Lease")}
	steps := []Step{
		{ID: "engines", Failure: "Unable to prepare the handshake", Run: func(ctx context.Context) error {
			if !step.CanFail(ctx) {
				t.Fatal("no flow failure function in a step's context")
			}
			time.AfterFunc(50*time.Millisecond, func() { step.Fail(ctx, engineErr) })
			return nil
		}},
		{ID: "wait-nonce", Failure: "Failed waiting for nonce to be generated", Timeout: time.Minute, Run: func(ctx context.Context) error {
			<-ctx.Done()
			return errors.New("timed out waiting for the nonce")
		}},
		{ID: "never", Run: func(context.Context) error { t.Error("a step ran after the failure"); return nil }},
	}
	start := time.Now()
	err := step.Run(t.Context(), nil, steps)
	var se *StepError
	if !errors.As(err, &se) || se.Step != "wait-nonce" {
		t.Fatalf("error %v: want the failure of wait-nonce", err)
	}
	if !errors.Is(err, engineErr) {
		t.Fatalf("error %v: want the engine's error", err)
	}
	if want := "Failed waiting for nonce to be generated: in-process provider controllers on https://provider:6443: controller: lost the Lease"; se.Line != want {
		t.Fatalf("line %q, want %q", se.Line, want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("took %s", took)
	}
}

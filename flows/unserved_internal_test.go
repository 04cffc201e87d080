package flows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The nonce wait on a provider whose controller could not be checked ends
// after the grace with an UnservedError, which is not a timeout and says
// what the provider's admin runs; a step timeout shorter than the grace,
// and a provider whose server is known, keep the wait's own outcome.
func TestUnservedNonceWait(t *testing.T) {
	defer func(g time.Duration) { unservedGrace = g }(unservedGrace)
	unservedGrace = 50 * time.Millisecond
	// The nonce never comes: the wait ends with its context, as kube.WaitFor does.
	never := Step{ID: "wait-nonce", Run: func(ctx context.Context) error {
		<-ctx.Done()
		return kube.ErrWaitTimeout
	}}
	step := func(engine Engine) Step {
		return unservedNonceWait(never, func() Engine { return engine }, func() string { return "p1" }, "https://p1.example:6443")
	}

	err := step(EngineControllerAssumed).Run(context.Background())
	var unserved *UnservedError
	require.ErrorAs(t, err, &unserved)
	assert.False(t, IsTimeout(err), "waiting longer does not help")
	e := Explain(err)
	assert.Equal(t, "nothing on provider p1 (https://p1.example:6443) created the nonce within 50ms: no controller seems to serve it "+
		"(this kubeconfig may not read its Lease nor its Events to tell)", e.Reason)
	assert.Contains(t, e.Hint, "its admin runs `liqo-auth-tui install controller` on the provider (or installs Liqo there)")

	// The step's own deadline first: its own error.
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	unservedGrace = time.Hour
	err = step(EngineControllerAssumed).Run(short)
	assert.True(t, errors.Is(err, kube.ErrWaitTimeout), "%v", err)

	// A provider whose controller was seen (or runs in-process): no grace.
	for _, engine := range []Engine{EngineController, EngineInProcess, EngineLiqo} {
		unservedGrace = time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		err = step(engine).Run(ctx)
		cancel()
		assert.True(t, errors.Is(err, kube.ErrWaitTimeout), "%s: %v", engine, err)
	}
}

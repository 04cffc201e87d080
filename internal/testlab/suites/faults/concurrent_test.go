//go:build cluster

package faults_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// Two authenticate runs on one pair at once, on a fresh pair and then on
// the authenticated one: both end well, or one says in one line that
// another run is in progress; the pair holds one Tenant, one Identity, one
// kubeconfig Secret, no CSR and no duplicate.
func TestTwoAuthenticateRunsAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	_, want := healthyRun(t)
	x := idsFor("fconc")
	provider, consumer := pair(t, ctx, x)
	for _, round := range []string{"fresh pair", "authenticated pair"} {
		start := make(chan struct{})
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				<-start
				_, errs[i] = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: rerunStepTimeout}, nil)
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			t.Logf("%s: %v", round, err)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Contains(t, err.Error(), "in progress", "the only refusal says another run is in progress")
		}
		require.GreaterOrEqual(t, ok, 1, "%s: at least one run completes: %v", round, errs)

		inv := inventory(t, ctx, provider, consumer, x)
		t.Logf("%s: the pair holds:\n%s", round, describeInventory(inv))
		assert.Equal(t, want, inv, "%s: what a single healthy run makes, nothing twice", round)
	}
}

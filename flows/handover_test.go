package flows_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/burst"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// The wizard's provider summary serves the provider in-process
// (ServeSlices) until the in-cluster controller holds its Lease, then says
// the controller serves it; the controller, which waits for the in-process
// Lease, serves from then on. Tenants applied before and during the
// hand-over each get their certificate, from one CSR: never two runners at
// once, never none.
func TestServeSlicesHandsOverToTheController(t *testing.T) {
	provider, _ := authenticatedPair(t, "handover-p", "handover-c")
	ctx := labtest.Context(t)
	states := make(chan flows.ProviderSlices, 64)
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- flows.ServeSlices(serveCtx, provider, "handover-c", flows.EngineOptions{}, func(ps flows.ProviderSlices) { states <- ps })
	}()
	require.Equal(t, flows.EngineInProcess, (<-states).Engine)

	const n = 20
	ids := make([]string, n)
	tenants := make([]*authv1beta1.Tenant, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("ho-%03d", i)
	}
	burst.Parallel(t, 4, n, func(i int) (err error) {
		tenants[i], err = burst.SyntheticConsumer(ctx, provider, ids[i])
		return err
	})
	csrs := burst.RecordTenantCSRs(t, ctx, provider, "ho-")
	filled := burst.WatchFilledTenants(t, ctx, provider, "ho-")
	apply := func(from, to int) {
		burst.Parallel(t, 4, to-from, func(i int) error {
			_, err := provider.Liqo.Tenants(tenants[from+i].Namespace).Create(ctx, tenants[from+i], metav1.CreateOptions{})
			return err
		})
	}
	apply(0, n/2)

	// The controller, as its Pod runs it.
	m, err := controller.New(provider, controller.Options{Provider: true, WaitForInProcess: true})
	require.NoError(t, err)
	runCtx, stopController := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		ran <- controller.RunWithLease(runCtx, provider, kube.ControllerLeaseName, "pod-a", controller.LeaseTiming{}, m, nil)
	}()
	t.Cleanup(func() { stopController(); <-ran })
	apply(n/2, n)

	for handedOver := false; !handedOver; {
		select {
		case state := <-states:
			handedOver = state.Engine == flows.EngineController
		case err := <-served:
			t.Fatalf("ServeSlices ended before the hand-over: %v", err)
		case <-ctx.Done():
			t.Fatal("the summary never said the controller serves the provider")
		}
	}
	select {
	case <-filled.AtLeast(ctx, n):
	case <-ctx.Done():
		t.Fatalf("only %d of %d Tenants got their status", filled.Count(), n)
	}
	for _, id := range ids {
		assert.Len(t, csrs.Of(id), 1, "CSRs of %s", id)
	}
	stopServe()
	require.NoError(t, <-served)
}

package flows

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ProviderSlices is what serves a provider, and the copies of one
// consumer's ResourceSlices it holds, with its answers.
type ProviderSlices = handshake.ProviderSlices

// ServeSlices keeps the provider's side served while ctx lives: when
// nothing else serves it (no Liqo, no liqo-auth-controller), this
// process's reconcilers do, all of them (ResourceSlices, renewals), under
// the Lease of in-process providers. In manual mode this is what answers a
// consumer's request for resources while the provider's admin keeps the
// wizard open. report gets what serves the provider at once, then the
// copies of consumerID's ResourceSlices whenever they change (from one
// goroutine at a time). It returns nil once ctx ends, or why serving
// stopped (the Lease lost, the reconcilers failed).
func ServeSlices(ctx context.Context, provider *kube.Cluster, consumerID string, o EngineOptions, report func(ProviderSlices)) error {
	engine, err := chooseEngine(ctx, provider, handshake.RoleProvider, o)
	if err != nil {
		return err
	}
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if err != nil {
		return fmt.Errorf("tenant namespace of consumer %s: %w", consumerID, err)
	}
	// A failure of the in-process reconcilers ends serveCtx with its cause
	// (engines.register).
	serveCtx, stop := step.Failable(ctx)
	defer stop()
	// report runs on one goroutine at a time: the slices' and the
	// hand-over's (the in-cluster controller's Pods run: it serves now).
	var mu sync.Mutex
	state := ProviderSlices{Engine: engine}
	eng := engines{handedOver: func(handshake.Role) {
		mu.Lock()
		defer mu.Unlock()
		state.Engine = EngineController
		report(state)
	}}
	defer eng.stop()
	if err := eng.serve(serveCtx, provider, handshake.RoleProvider, engine, o, nil, handshake.Local); err != nil {
		return err
	}
	mu.Lock()
	report(state)
	mu.Unlock()
	err = kube.Observe(serveCtx, provider.ResourceSlicesListWatch(ns.Name, kube.BySelector("")), func(list []*authv1beta1.ResourceSlice) {
		mu.Lock()
		defer mu.Unlock()
		state.Slices = make([]SliceStatus, 0, len(list))
		for _, rs := range list {
			state.Slices = append(state.Slices, peerings.SliceStatusOf(rs, nil))
		}
		sort.Slice(state.Slices, func(i, j int) bool { return state.Slices[i].Name < state.Slices[j].Name })
		report(state)
	})
	if ctx.Err() == nil && context.Cause(serveCtx) != nil {
		return context.Cause(serveCtx)
	}
	return err
}

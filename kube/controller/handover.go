package controller

import (
	"context"
	"errors"

	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The hand-over from in-process runs (the wizard serving a cluster until
// the controller's Pods run) to the in-cluster controller, without a gap
// and without two runners at once: each side takes its own Lease first,
// then looks at the other's. The in-process run (Options.YieldToController)
// stops its workers once the controller holds its Lease, which releases
// the in-process Lease; the controller (Options.WaitForInProcess) starts
// its workers once no in-process run of its roles holds one. Its caches
// are synced meanwhile, so it takes over at once.

// ErrHandedOver ends the Run of an in-process Manager once the in-cluster
// controller holds its Lease: from then on the controller serves the
// cluster. It is not a failure.
var ErrHandedOver = errors.New("controller: handed over to the in-cluster controller")

// inProcessLeases are the Leases in-process runs of m's roles hold.
func (m *Manager) inProcessLeases() []string {
	var names []string
	if m.o.Provider {
		names = append(names, kube.InProcessLeasePrefix+"provider")
	}
	if m.o.Consumer {
		names = append(names, kube.InProcessLeasePrefix+"consumer")
	}
	return names
}

// waitInProcessDone returns once no in-process run of m's roles holds its
// Lease (nil), or when ctx ends.
func (m *Manager) waitInProcessDone(ctx context.Context) error {
	for _, name := range m.inProcessLeases() {
		if err := kube.WaitLease(ctx, m.c, name, false, func(holder string) {
			klog.FromContext(ctx).Info("Waiting for the in-process run to hand over", "lease", name, "holder", holder)
		}); err != nil {
			return err
		}
	}
	return nil
}

// yieldToController returns ctx, ended with the cause ErrHandedOver once
// the in-cluster controller holds its Lease, and whether it already does
// (then nothing should start). A Lease that cannot be read or watched
// leaves the run as it is: the controller still waits for its Lease.
func (m *Manager) yieldToController(ctx context.Context) (context.Context, bool) {
	held, err := m.c.ControllerRunning(ctx)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Looking for the in-cluster controller's Lease", "cluster", m.c.Server)
	}
	if held {
		return ctx, true
	}
	ctx, handOver := context.WithCancelCause(ctx)
	go func() {
		if err := kube.WaitLease(ctx, m.c, kube.ControllerLeaseName, true, nil); err == nil && ctx.Err() == nil {
			klog.FromContext(ctx).Info("Handing over to the in-cluster controller", "cluster", m.c.Server)
			handOver(ErrHandedOver)
		} else if err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Watching the in-cluster controller's Lease", "cluster", m.c.Server)
		}
	}()
	return ctx, false
}

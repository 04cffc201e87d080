package kube

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// WaitLease returns once the Lease name in the cluster's Liqo namespace is
// held (held true) or not (false: absent, released or expired), or when ctx
// ends (its error). waiting, if set, is told the holder it waits for.
// Event-driven: an expiry with no event is met by a timer.
func WaitLease(ctx context.Context, c *Cluster, name string, held bool, waiting func(holder string)) error {
	leases := c.Kube.CoordinationV1().Leases(c.Namespace)
	changed := make(chan *coordinationv1.Lease, 1)
	observed := make(chan error, 1)
	obsCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		observed <- Observe(obsCtx, ListWatch(leases.List, leases.Watch, ByName(name)), func(ls []*coordinationv1.Lease) {
			var l *coordinationv1.Lease
			if len(ls) > 0 {
				l = ls[0]
			}
			select { // only the latest matters
			case <-changed:
			default:
			}
			changed <- l
		})
	}()
	expiry := time.NewTimer(time.Hour)
	defer expiry.Stop()
	var current *coordinationv1.Lease
	told := ""
	for first := true; ; first = false {
		if !first {
			until, now := time.Time{}, false
			if current != nil {
				until, now = LeaseHeld(current, time.Now())
			}
			if now == held {
				return nil
			}
			if now {
				expiry.Reset(time.Until(until) + 10*time.Millisecond)
				if h := *current.Spec.HolderIdentity; waiting != nil && h != told {
					told = h
					waiting(h)
				}
			}
		}
		select {
		case current = <-changed:
		case <-expiry.C:
		case err := <-observed:
			if err == nil {
				err = ctx.Err()
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

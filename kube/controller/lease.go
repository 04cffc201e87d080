package controller

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Leader election timing (client-go's usual values).
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// RunWithLease runs m only while holding the Lease leaseName in the
// cluster's Liqo namespace, so that two runners never act at once; identity
// is the holder name. It returns when ctx ends, after m stopped and the
// Lease was released. onLeading (may be nil) is told when leadership starts
// (true) and stops (false). Leadership lost is competed for again.
func RunWithLease(ctx context.Context, c *kube.Cluster, leaseName, identity string, m *Manager, onLeading func(bool)) error {
	if c == nil || m == nil {
		return errors.New("controller: RunWithLease needs a cluster and a Manager")
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, c.Namespace, leaseName,
		c.Kube.CoreV1(), c.Kube.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		if err := leadOnce(ctx, lock, leaseName, m, onLeading); err != nil {
			return err
		}
	}
	return nil
}

// leadOnce competes for the Lease and runs m while holding it. It returns
// when leadership is lost or ctx ends, in both cases only after m stopped,
// and in the latter after the Lease was released: the next holder never
// overlaps with this one.
func leadOnce(ctx context.Context, lock resourcelock.Interface, name string, m *Manager, onLeading func(bool)) error {
	var (
		mu      sync.Mutex
		over    bool // this round ended: a late OnStartedLeading must not run m
		running sync.WaitGroup
		runErr  error                 // why m stopped on its own
		ranOut  = make(chan struct{}) // m returned while leading
	)
	// The elector's own context outlives ctx until m stopped, so that the
	// Lease is released only then.
	electorCtx, stopElector := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElector()
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, Name: name, ReleaseOnCancel: true,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				mu.Lock()
				if over {
					mu.Unlock()
					return
				}
				running.Add(1)
				mu.Unlock()
				defer running.Done()
				runCtx, cancel := context.WithCancel(leading)
				defer cancel()
				stop := context.AfterFunc(ctx, cancel)
				defer stop()
				if onLeading != nil {
					onLeading(true)
					defer onLeading(false)
				}
				err := m.Run(runCtx)
				if err != nil {
					klog.FromContext(ctx).Error(err, "Controllers stopped", "lease", name)
				}
				mu.Lock()
				runErr = err
				mu.Unlock()
				close(ranOut)
			},
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return err
	}
	electorDone := make(chan struct{})
	go func() {
		defer close(electorDone)
		le.Run(electorCtx)
	}()
	select {
	case <-ctx.Done():
	case <-electorDone: // leadership lost
	case <-ranOut:
	}
	mu.Lock()
	over = true
	mu.Unlock()
	running.Wait()
	stopElector()
	<-electorDone
	mu.Lock()
	failed := runErr != nil
	mu.Unlock()
	if failed && ctx.Err() == nil {
		// m could not start (the API is not served, say): let another
		// runner try, and try again a bit later.
		select {
		case <-ctx.Done():
		case <-time.After(retryPeriod):
		}
	}
	return nil
}

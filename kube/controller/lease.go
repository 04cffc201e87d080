package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// LeaseTiming is leader election's timing: how long a Lease holds without
// renewal, how long its holder keeps trying to renew before it gives up,
// and how often it renews (and others try to take it).
type LeaseTiming struct {
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// DefaultLeaseTiming are client-go's usual values, kube-controller-manager's
// defaults.
var DefaultLeaseTiming = LeaseTiming{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}

// RunWithLease runs m only while holding the Lease leaseName in the
// cluster's Liqo namespace, so that two runners never act at once; identity
// is the holder name, timing the election's (zero: DefaultLeaseTiming). It
// returns when ctx ends, after m stopped and the Lease was released.
// onLeading (may be nil) is told when leadership starts (true) and stops
// (false). Leadership lost is competed for again.
func RunWithLease(ctx context.Context, c *kube.Cluster, leaseName, identity string, timing LeaseTiming, m *Manager, onLeading func(bool)) error {
	if c == nil || m == nil {
		return errors.New("controller: RunWithLease needs a cluster and a Manager")
	}
	if timing == (LeaseTiming{}) {
		timing = DefaultLeaseTiming
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, c.Namespace, leaseName,
		c.Kube.CoreV1(), c.Kube.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		if err := leadOnce(ctx, lock, leaseName, timing, m, onLeading, nil); err != nil {
			return err
		}
	}
	return nil
}

// ErrLeaseLost ends a run started by StartWithLease whose Lease could not
// be renewed.
var ErrLeaseLost = errors.New("controller: lost the Lease")

// Started is a Manager run under a Lease by StartWithLease.
type Started struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
}

// Done is closed once the run ended: stopped, or failed (see Err).
func (s *Started) Done() <-chan struct{} { return s.done }

// Err tells why the run ended on its own (nil while it runs, or when it
// was stopped).
func (s *Started) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stop ends the run and waits for it: the Manager stopped and the Lease
// was released.
func (s *Started) Stop() {
	s.cancel()
	<-s.done
}

func (s *Started) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.cancel()
}

// StartWithLease runs m while holding the Lease leaseName, for a caller
// that needs it served now (the wizard's in-process controllers): it
// returns once the Lease is held and m's caches synced, or with the cause
// when that fails or takes longer than timeout (the Lease held by another
// runner, an informer that cannot list). Unlike RunWithLease it does not
// compete again: a later failure (m stopping with an error, the Lease lost)
// ends the run, which Done and Err then report. ctx bounds the start only
// (its values are kept): the run lasts until Stop.
func StartWithLease(ctx context.Context, c *kube.Cluster, leaseName, identity string, m *Manager, timeout time.Duration) (*Started, error) {
	s, err := BeginWithLease(ctx, c, leaseName, identity, m, timeout)
	if err != nil {
		return nil, err
	}
	return s.Wait(ctx)
}

// Starting is a StartWithLease under way: the Lease competed for, then the
// caches syncing. A caller starting two runs in order waits for the first
// one's Lease (Leading) and lets its caches sync while the second starts.
type Starting struct {
	run      *Started
	lock     resourcelock.Interface
	m        *Manager
	c        *kube.Cluster
	name     string
	timeout  time.Duration
	deadline *time.Timer
	leading  chan struct{} // closed once the Lease is held
}

// BeginWithLease starts what StartWithLease does and returns at once; Wait
// ends the start. The timeout counts from now.
func BeginWithLease(ctx context.Context, c *kube.Cluster, leaseName, identity string, m *Manager, timeout time.Duration) (*Starting, error) {
	if c == nil || m == nil {
		return nil, errors.New("controller: StartWithLease needs a cluster and a Manager")
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, c.Namespace, leaseName,
		c.Kube.CoreV1(), c.Kube.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Starting{run: &Started{cancel: cancel, done: make(chan struct{})}, lock: lock, m: m, c: c, name: leaseName,
		timeout: timeout, deadline: time.NewTimer(timeout), leading: make(chan struct{})}
	var once sync.Once
	// The caches sync while the Lease is competed for: only the workers,
	// which write, wait for it.
	m.Warm(runCtx)
	go func() {
		defer close(s.run.done)
		defer m.Cool() // a preparation no Run took over (the Lease never held)
		_ = leadOnce(runCtx, lock, leaseName, DefaultLeaseTiming, m, func(l bool) {
			if l {
				once.Do(func() { close(s.leading) })
			}
		}, s.run.fail)
	}()
	return s, nil
}

// Leading waits until the Lease is held (true), or the start failed, timed
// out or ctx ended (false: Wait then tells why).
func (s *Starting) Leading(ctx context.Context) bool {
	select {
	case <-s.leading:
		return true
	case <-s.run.done:
	case <-ctx.Done():
	case <-s.deadline.C:
		s.deadline.Reset(0) // for Wait
	}
	select {
	case <-s.leading:
		return true
	default:
		return false
	}
}

// Stop ends a start that will not be waited for.
func (s *Starting) Stop() {
	s.deadline.Stop()
	s.run.Stop()
}

// Wait returns the run once its caches synced, or why it did not start;
// what did not start is stopped.
func (s *Starting) Wait(ctx context.Context) (*Started, error) {
	defer s.deadline.Stop()
	select {
	case <-s.m.Synced():
		return s.run, nil
	case <-s.run.done:
		if err := s.run.Err(); errors.Is(err, ErrHandedOver) {
			return s.run, nil // served by the in-cluster controller (Err tells)
		} else if err != nil {
			return nil, err
		}
		return nil, errors.New("controller: the controllers stopped before they synced")
	case <-ctx.Done():
		s.run.Stop()
		return nil, context.Cause(ctx)
	case <-s.deadline.C:
	}
	s.run.Stop()
	select {
	case <-s.leading:
	default:
		holder := "another runner"
		getCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if rec, _, err := s.lock.Get(getCtx); err == nil && rec.HolderIdentity != "" {
			holder = rec.HolderIdentity
		}
		return nil, fmt.Errorf("another run is in progress: the Lease %s/%s is held by %s and was not released within %s (let that run end, then run again)",
			s.c.Namespace, s.name, holder, s.timeout)
	}
	err := fmt.Errorf("controller: the caches of the controllers did not sync within %s", s.timeout)
	if last := s.m.LastListError(); last != nil {
		err = fmt.Errorf("%w (last error: %w)", err, last)
	}
	return nil, err
}

// leadOnce competes for the Lease and runs m while holding it. It returns
// when leadership is lost or ctx ends, in both cases only after m stopped,
// and in the latter after the Lease was released: the next holder never
// overlaps with this one.
//
// fatal, when set, is told when m stops with an error or leadership is
// lost while ctx lasts, and leadOnce then returns at once (no retry delay).
func leadOnce(ctx context.Context, lock resourcelock.Interface, name string, timing LeaseTiming, m *Manager, onLeading func(bool), fatal func(error)) error {
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
		LeaseDuration: timing.LeaseDuration, RenewDeadline: timing.RenewDeadline, RetryPeriod: timing.RetryPeriod,
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
				if err != nil && !errors.Is(err, ErrHandedOver) {
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
	if fatal != nil && ctx.Err() == nil {
		if failed {
			fatal(runErr)
		} else {
			// The elector ended, or m returned without an error while ctx
			// lasts: only its leading context ending does that.
			fatal(fmt.Errorf("%w %s (held as %s): another runner took it over, or it could not be renewed in time", ErrLeaseLost, name, lock.Identity()))
		}
		return nil
	}
	if failed && ctx.Err() == nil {
		// m could not start (the API is not served, say): let another
		// runner try, and try again a bit later.
		select {
		case <-ctx.Done():
		case <-time.After(timing.RetryPeriod):
		}
	}
	return nil
}

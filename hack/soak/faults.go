package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// A window is a time something was down by design.
type window struct {
	kind       string // providerDown, consumerPaused, leaderKilled
	what       string
	start, end time.Time
}

// faultMargin is the end of the soak where no fault starts: what it
// disturbs is seen before the end.
const faultMargin = 10 * time.Second

const (
	providerDown   = "provider kube-apiserver restarted"
	consumerPaused = "consumer kube-apiserver paused"
	leaderKilled   = "leader replica SIGKILLed"
)

func overlaps(ws []window, start, end time.Time) bool {
	for _, w := range ws {
		if start.Before(w.end) && end.After(w.start) {
			return true
		}
	}
	return false
}

// leaderChange is a new holder of the provider controller's Lease.
type leaderChange struct {
	from, to string
	at       time.Time
	// took is from the kill of the old leader (or, unprovoked, from its
	// last renewal) to the new holder seen.
	took   time.Duration
	killed bool
}

// faults injects the soak's faults on timers (the schedule is a timer by
// design) and records when each was under way.
type faults struct {
	s *soakLab

	mu      sync.Mutex
	windows []window
	changes []leaderChange
	holder  string
	renewed time.Time // the holder's last renewal
	killAt  map[string]time.Time
	changed chan struct{} // closed and replaced when the holder changes
}

func newFaults(s *soakLab) *faults {
	return &faults{s: s, killAt: map[string]time.Time{}, changed: make(chan struct{})}
}

// followLease watches the provider controller's Lease (an informer: it
// relists after the provider's API server restarts).
func (f *faults) followLease(ctx context.Context) error {
	leases := f.s.providerC.Kube.CoordinationV1().Leases(f.s.providerC.Namespace)
	return runInformer(ctx, kube.ListWatch(leases.List, leases.Watch, kube.ByName(kube.ControllerLeaseName)), &coordinationv1.Lease{},
		func(obj any) {
			l, ok := obj.(*coordinationv1.Lease)
			if !ok || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
				return
			}
			f.leaseSeen(*l.Spec.HolderIdentity)
		})
}

// leaseSeen records a look at the Lease: a renewal, or a new holder.
func (f *faults) leaseSeen(holder string) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if holder != f.holder && f.holder != "" {
		c := leaderChange{from: f.holder, to: holder, at: now}
		if at, ok := f.killAt[f.holder]; ok {
			c.took, c.killed = now.Sub(at), true
			delete(f.killAt, f.holder)
		} else {
			c.took = now.Sub(f.renewed)
		}
		f.changes = append(f.changes, c)
		close(f.changed)
		f.changed = make(chan struct{})
	}
	f.holder, f.renewed = holder, now
}

func (f *faults) leader() (string, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holder, f.changed
}

func (f *faults) record(w window) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.windows = append(f.windows, w)
}

// run injects the faults until soak ends (none starts in its last
// faultMargin); one at a time, so that each one's effect is its own, and
// each one completes under ctx (a restarted API server is ready, a killed
// leader replaced) even when the soak ends meanwhile. An error is a fault
// that could not be injected.
func (f *faults) run(ctx, soak context.Context, cfg Config, progress func(string, ...any)) error {
	end, _ := soak.Deadline()
	type schedule struct {
		every time.Duration
		next  time.Time
		do    func(context.Context, int) error
		n     int
	}
	start := time.Now()
	schedules := []*schedule{
		{every: cfg.ProviderRestartEvery, do: f.restartProvider},
		{every: cfg.LeaderKillEvery, do: f.killLeader},
		{every: cfg.ConsumerPauseEvery, do: f.pauseConsumer},
	}
	for _, s := range schedules {
		s.next = start.Add(s.every)
	}
	for {
		var due *schedule
		for _, s := range schedules {
			if s.every > 0 && (due == nil || s.next.Before(due.next)) {
				due = s
			}
		}
		if due == nil || due.next.After(end.Add(-faultMargin)) {
			<-soak.Done()
			return nil
		}
		select {
		case <-soak.Done():
			return nil
		case <-time.After(time.Until(due.next)):
		}
		if err := due.do(ctx, due.n); err != nil {
			return err
		}
		due.n++
		due.next = due.next.Add(due.every)
		if now := time.Now(); due.next.Before(now) {
			due.next = now // a fault that outlasted its period: the next one at once
		}
		f.mu.Lock()
		w := f.windows[len(f.windows)-1]
		f.mu.Unlock()
		progress("%s: %s (%s)", w.kind, w.what, w.end.Sub(w.start).Round(100*time.Millisecond))
	}
}

// restartProvider kills the provider's kube-apiserver and starts it again
// (same address, certificates and etcd); down until it is ready.
func (f *faults) restartProvider(ctx context.Context, _ int) error {
	w := window{kind: providerDown, what: "provider", start: time.Now()}
	err := f.s.provider.RestartAPIServer(ctx)
	w.end = time.Now()
	f.record(w)
	return err
}

// killLeader SIGKILLs the replica holding the Lease, waits until the other
// one holds it (the watch), and starts the killed one again as the
// standby, as its Pod's restart would.
func (f *faults) killLeader(ctx context.Context, _ int) error {
	holder, changed := f.leader()
	var victim *controllerProcess
	for _, p := range f.s.replicas {
		if p.identity == holder {
			victim = p
		}
	}
	if victim == nil {
		return fmt.Errorf("the Lease holder %q is no replica", holder)
	}
	w := window{kind: leaderKilled, what: holder, start: time.Now()}
	victim.scrapeRequests(ctx) // its counters, up to the kill
	f.mu.Lock()
	f.killAt[holder] = w.start
	f.mu.Unlock()
	victim.kill()
	var err error
	select {
	case <-changed:
	case <-time.After(2 * time.Minute):
		err = fmt.Errorf("no new leader 2 minutes after %s was killed", holder)
	case <-ctx.Done():
		err = ctx.Err()
	}
	w.end = time.Now()
	f.record(w)
	if startErr := victim.start(); err == nil {
		err = startErr
	}
	return err
}

// pauseConsumer stops one consumer's kube-apiserver (SIGSTOP) for
// cfg.ConsumerPauseFor, a different consumer each time.
func (f *faults) pauseConsumer(ctx context.Context, n int) error {
	c := f.s.consumers[n%len(f.s.consumers)]
	w := window{kind: consumerPaused, what: c.id, start: time.Now()}
	if err := c.cluster.PauseAPIServer(); err != nil {
		return err
	}
	select {
	case <-time.After(f.s.cfg.ConsumerPauseFor): // a timer by design
	case <-ctx.Done():
	}
	err := c.cluster.ResumeAPIServer()
	w.end = time.Now()
	f.record(w)
	return err
}

func (f *faults) windowsOf(kind string) []window {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []window
	for _, w := range f.windows {
		if w.kind == kind {
			out = append(out, w)
		}
	}
	return out
}

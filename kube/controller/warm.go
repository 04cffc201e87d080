package controller

import (
	"context"
)

// preparedRun is what a Run needs before its workers start: the Liqo APIs
// checked, the informers wired and started. Warm prepares one ahead of the
// Run (before its Lease is held), which then only waits for the caches.
type preparedRun struct {
	r   *wiring
	ev  *events
	err error // why it could not be prepared
	// ctx bounds the informers; a list refused before the caches synced
	// ends it with the cause (wiring.fail).
	ctx    context.Context
	cancel context.CancelCauseFunc
	ready  chan struct{} // closed once prepared (or failed to)
}

// prepare checks the APIs, wires the reconcilers and starts the informers,
// bound to parent.
func (m *Manager) prepare(parent context.Context) *preparedRun {
	p := newPreparedRun(parent)
	m.fill(p)
	return p
}

func newPreparedRun(parent context.Context) *preparedRun {
	p := &preparedRun{ready: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancelCause(parent)
	return p
}

func (m *Manager) fill(p *preparedRun) {
	defer close(p.ready)
	if p.err = m.checkAPIs(p.ctx); p.err != nil {
		return
	}
	p.ev = newEvents(m.c)
	if p.r, p.err = m.wire(p.ev); p.err != nil {
		return
	}
	// A list the API server refuses (Forbidden, a resource not served)
	// before the caches synced ends the run with that cause: the informer
	// would otherwise retry it forever and the run never sync.
	p.r.fail, p.r.lastErr = p.cancel, &m.lastListErr
	p.r.start(p.ctx)
}

// close stops the informers and the workers' queues, and writes the Events
// still held.
func (p *preparedRun) close() {
	p.cancel(nil)
	<-p.ready
	if p.r != nil {
		p.r.shutDownQueues()
		p.r.stop()
	}
	if p.ev != nil {
		p.ev.close(eventFlushTimeout)
	}
}

// Warm starts preparing the next Run now, in the background: the API
// checks and the cache sync then overlap with what comes before the Run
// (taking the Lease). It only reads. The preparation lasts until a Run
// takes it over or Cool drops it; ctx gives its values, not its end. A
// second Warm before either does nothing.
func (m *Manager) Warm(ctx context.Context) {
	m.warmMu.Lock()
	defer m.warmMu.Unlock()
	if m.warm != nil {
		return
	}
	m.warm = newPreparedRun(context.WithoutCancel(ctx))
	go m.fill(m.warm)
}

// Cool drops a preparation that no Run took over, stopping its informers.
func (m *Manager) Cool() {
	if p := m.takeWarm(); p != nil {
		p.close()
	}
}

// takeWarm returns the preparation Warm started, perhaps not ready yet, or nil.
func (m *Manager) takeWarm() *preparedRun {
	m.warmMu.Lock()
	defer m.warmMu.Unlock()
	p := m.warm
	m.warm = nil
	return p
}

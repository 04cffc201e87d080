package controller

import "sync"

// activity counts the syncs under way across a run's loops, so that
// housekeeping (informational Events) can wait for an idle moment instead
// of competing with handshakes during a burst.
type activity struct {
	mu     sync.Mutex
	busy   int
	onIdle []func()
}

// begin and end bracket one sync.
func (a *activity) begin() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.busy++
	a.mu.Unlock()
}

func (a *activity) end() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.busy--
	var call []func()
	if a.busy == 0 {
		call = a.onIdle
	}
	a.mu.Unlock()
	for _, f := range call {
		f()
	}
}

// idle tells whether no sync is under way (a nil activity always is).
func (a *activity) idle() bool {
	if a == nil {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.busy == 0
}

// notify registers f, called (without blocking) each time the last sync
// under way ends.
func (a *activity) notify(f func()) {
	a.mu.Lock()
	a.onIdle = append(a.onIdle, f)
	a.mu.Unlock()
}

package controller

import (
	"sync"
	"time"
)

// A provider's Forbidden on a copy (its Tenant drained or deleted, or the
// consumer's rights taken away) is told once, and the copy is tried again
// after refusalRecheck, doubling up to refusalRecheckMax while it lasts,
// instead of with the two-minute error back-off for ever. A change of the
// object or of the kubeconfig tries at once.
const (
	refusalRecheck    = 5 * time.Minute
	refusalRecheckMax = time.Hour
)

// refusals counts, by queue key, the refusals in a row of one copy.
type refusals struct {
	mu sync.Mutex
	n  map[string]int
}

// note counts a refusal of key and returns how many came before it.
func (f *refusals) note(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[string]int{}
	}
	n := f.n[key]
	f.n[key] = n + 1
	return n
}

// forget ends the refusals of key, and tells whether there were any.
func (f *refusals) forget(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, had := f.n[key]
	delete(f.n, key)
	return had
}

// refusalBackoff is when to look again after n earlier refusals in a row.
func refusalBackoff(n int) time.Duration {
	if n >= 4 { // 5 min << 4 > an hour
		return refusalRecheckMax
	}
	return min(refusalRecheck<<n, refusalRecheckMax)
}

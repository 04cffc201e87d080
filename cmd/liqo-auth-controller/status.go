package main

import (
	"net/http"
	"sync/atomic"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// syncer is what readiness asks the Manager (controller.Manager).
type syncer interface{ HasSynced() bool }

var _ syncer = (*controller.Manager)(nil)

// status tracks what /readyz reports.
type status struct {
	leading atomic.Bool
}

// healthMux serves /healthz (the process is alive) and /readyz: the leader
// is ready once its caches synced; a standby replica is ready to take over
// as long as it is not leading.
func (s *status) healthMux(m syncer) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		switch {
		case !s.leading.Load():
			_, _ = w.Write([]byte("ok: standby\n"))
		case m.HasSynced():
			_, _ = w.Write([]byte("ok: leading, caches synced\n"))
		default:
			http.Error(w, "leading, caches not synced yet", http.StatusServiceUnavailable)
		}
	})
	return mux
}

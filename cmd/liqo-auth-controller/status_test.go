package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

type fakeSyncer struct{ synced atomic.Bool }

func (f *fakeSyncer) HasSynced() bool { return f.synced.Load() }

func TestReadyzWaitsForCacheSyncWhileLeading(t *testing.T) {
	m := &fakeSyncer{}
	s := &status{}
	mux := s.healthMux(m)
	code := func(path string) int {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	assert.Equal(t, http.StatusOK, code("/healthz"))
	assert.Equal(t, http.StatusOK, code("/readyz"), "a standby replica is ready to take over")
	s.leading.Store(true)
	assert.Equal(t, http.StatusServiceUnavailable, code("/readyz"), "leading but caches not synced")
	m.synced.Store(true)
	assert.Equal(t, http.StatusOK, code("/readyz"))
}

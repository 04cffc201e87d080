//go:build cluster

package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/cache"
)

// warmOf returns the preparation Warm started, once its informers synced.
func warmOf(t *testing.T, m *Manager) *preparedRun {
	t.Helper()
	m.warmMu.Lock()
	p := m.warm
	m.warmMu.Unlock()
	require.NotNil(t, p, "no preparation under way")
	<-p.ready
	require.NoError(t, p.err)
	require.True(t, cache.WaitFor(t.Context(), "", p.r.synced...), "the prepared caches did not sync")
	return p
}

// While another runner holds the Lease, a starter's caches sync (it only
// reads); once the Lease comes to it, its workers start without its
// informers listing anything again. HandshakeOnly leaves ResourceSlices and Renews alone.
func TestCachesSyncBeforeTheLease(t *testing.T) {
	counted, log := countedCluster(t, providerCluster(t))
	const lease = "liqo-auth-test-warm-lease"
	holder, err := New(counted, Options{Provider: true, HandshakeOnly: true})
	require.NoError(t, err)
	first, err := StartWithLease(t.Context(), counted, lease, "holder", holder, 30*time.Second)
	require.NoError(t, err)

	m, err := New(counted, Options{Provider: true, HandshakeOnly: true})
	require.NoError(t, err)
	s, err := BeginWithLease(t.Context(), counted, lease, "starter", m, 30*time.Second)
	require.NoError(t, err)
	t.Cleanup(s.Stop)
	warmOf(t, m)
	select {
	case <-s.leading:
		t.Fatal("the starter leads while the holder holds the Lease")
	default:
	}
	assert.False(t, m.HasSynced(), "a Run synced without the Lease")

	before := log.snapshot()
	first.Stop() // releases the Lease
	run, err := s.Wait(t.Context())
	require.NoError(t, err)
	assert.True(t, m.HasSynced())
	require.Equal(t, s.run, run)
	// An informer (re)starting makes its initial list: a list at
	// resourceVersion 0 or a watch that sends the initial events. (The
	// workers' own live lookups, such as a Tenant's missing nonce of an
	// earlier test's Tenant, are consistent lists: not counted.)
	for k := range log.since(before) {
		assert.False(t, strings.HasPrefix(k, "initial "), "%s after the Lease changed hands: the caches were ready before", k)
	}
	for k := range log.snapshot() {
		assert.NotContains(t, k, "resourceslices", "HandshakeOnly asked about ResourceSlices: %s", k)
		assert.NotContains(t, k, "renews", "HandshakeOnly asked about Renews: %s", k)
	}
}

// A start stopped before it ever led stops the informers it had started.
func TestStopBeforeLeadingEndsThePreparation(t *testing.T) {
	p := providerCluster(t)
	const lease = "liqo-auth-test-cool-lease"
	holder, err := New(p, Options{Provider: true})
	require.NoError(t, err)
	first, err := StartWithLease(t.Context(), p, lease, "holder", holder, 30*time.Second)
	require.NoError(t, err)
	t.Cleanup(first.Stop)

	m, err := New(p, Options{Provider: true})
	require.NoError(t, err)
	s, err := BeginWithLease(t.Context(), p, lease, "starter", m, 30*time.Second)
	require.NoError(t, err)
	prepared := warmOf(t, m)
	s.Stop()
	assert.Error(t, prepared.ctx.Err(), "the informers' context outlived the start")
	assert.Nil(t, m.takeWarm(), "the preparation is still held")
	assert.False(t, m.HasSynced())
}

//go:build cluster

package controller

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StartWithLease returns once the Lease is held and the caches synced; a
// second starter, finding the Lease held, never leads and fails naming the
// holder; a Lease
// taken over ends the run with ErrLeaseLost.
func TestStartWithLease(t *testing.T) {
	p := providerCluster(t)
	const lease = "liqo-auth-test-start-lease"
	m, err := New(p, Options{Provider: true})
	require.NoError(t, err)
	start := time.Now()
	s, err := StartWithLease(t.Context(), p, lease, "starter-a", m, 30*time.Second)
	require.NoError(t, err)
	t.Cleanup(s.Stop)
	t.Logf("held and synced after %s", time.Since(start).Round(time.Millisecond))
	assert.True(t, m.HasSynced())

	other, err := New(p, Options{Provider: true})
	require.NoError(t, err)
	start = time.Now()
	b, err := BeginWithLease(t.Context(), p, lease, "starter-b", other, 3*time.Second)
	require.NoError(t, err)
	assert.False(t, b.Leading(t.Context()), "the Lease is held by starter-a")
	_, err = b.Wait(t.Context())
	require.Error(t, err)
	t.Logf("second starter failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
	assert.Contains(t, err.Error(), "is held by starter-a")
	assert.False(t, other.HasSynced())

	// Somebody else takes the Lease over: the run ends, saying so.
	leases := p.Kube.CoordinationV1().Leases(p.Namespace)
	l, err := leases.Get(t.Context(), lease, metav1.GetOptions{})
	require.NoError(t, err)
	thief := "thief"
	l.Spec.HolderIdentity = &thief
	_, err = leases.Update(t.Context(), l, metav1.UpdateOptions{})
	require.NoError(t, err)
	start = time.Now()
	select {
	case <-s.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end when its Lease was taken")
	}
	t.Logf("run ended %s after the Lease was taken: %v", time.Since(start).Round(time.Millisecond), s.Err())
	assert.True(t, errors.Is(s.Err(), ErrLeaseLost), "%v", s.Err())
	assert.False(t, m.HasSynced())
}

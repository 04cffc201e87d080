//go:build cluster

package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Two runners on one cluster: exactly one leads; when it stops, the other
// takes over.
func TestRunWithLease(t *testing.T) {
	p := providerCluster(t)
	const lease = "liqo-auth-test-lease"
	type runner struct {
		name    string
		m       *Manager
		cancel  context.CancelFunc
		done    chan struct{} // closed when RunWithLease returned
		err     error
		leading chan bool
	}
	start := func(name string) *runner {
		m, err := New(p, Options{Provider: true})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		r := &runner{name: name, m: m, cancel: cancel, done: make(chan struct{}), leading: make(chan bool, 4)}
		go func() {
			defer close(r.done)
			r.err = RunWithLease(ctx, p, lease, name, LeaseTiming{}, m, func(l bool) { r.leading <- l })
		}()
		t.Cleanup(func() { cancel(); <-r.done })
		return r
	}
	a, b := start("runner-a"), start("runner-b")

	var leader, other *runner
	select {
	case l := <-a.leading:
		require.True(t, l)
		leader, other = a, b
	case l := <-b.leading:
		require.True(t, l)
		leader, other = b, a
	case <-time.After(30 * time.Second):
		t.Fatal("nobody leads")
	}
	select {
	case <-leader.m.Synced():
	case <-time.After(30 * time.Second):
		t.Fatal("the leader's manager did not sync")
	}
	held, err := p.Kube.CoordinationV1().Leases(p.Namespace).Get(t.Context(), lease, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, leader.name, *held.Spec.HolderIdentity)
	assert.False(t, other.m.HasSynced(), "the other runner does not run")
	assert.Empty(t, other.leading)

	leader.cancel()
	<-leader.done
	require.NoError(t, leader.err)
	assert.False(t, <-leader.leading, "the leader was told it stopped")
	assert.False(t, leader.m.HasSynced())
	select {
	case l := <-other.leading:
		assert.True(t, l)
	case <-time.After(30 * time.Second):
		t.Fatal("the other runner did not take over")
	}
	select {
	case <-other.m.Synced():
	case <-time.After(30 * time.Second):
		t.Fatal("the new leader's manager did not sync")
	}
	held, err = p.Kube.CoordinationV1().Leases(p.Namespace).Get(t.Context(), lease, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, other.name, *held.Spec.HolderIdentity)
}

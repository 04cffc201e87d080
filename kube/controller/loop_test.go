package controller

import (
	"context"
	"errors"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// A sync that panics does not take the process down: the panic becomes an
// error of that reconcile, counted as such, and the key is retried with
// back-off; the next sync of the key runs normally.
func TestLoopRecoversPanickingSync(t *testing.T) {
	const name = "panicky-test"
	calls := 0
	l := newLoop(name, func(_ context.Context, key string) (time.Duration, error) {
		calls++
		if calls == 1 {
			panic("boom on " + key)
		}
		return 0, nil
	}, nil)
	defer l.queue.ShutDown()
	errorsBefore := reconcileErrors(t, name)

	l.queue.Add("ns/obj")
	err := runLoop(t, l, "ns/obj")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "panic in panicky-test reconcile of ns/obj: boom on ns/obj")
	assert.Equal(t, errorsBefore+1, reconcileErrors(t, name), "counted as an error")
	assert.Equal(t, 1, l.queue.NumRequeues("ns/obj"), "requeued with rate limiting")

	// The rate-limited retry comes back (5 ms first back-off) and succeeds.
	require.NoError(t, runLoop(t, l, "ns/obj"))
	assert.Equal(t, 2, calls)
	assert.Equal(t, 0, l.queue.NumRequeues("ns/obj"))
}

// An informer whose list is refused or not served ends the run before its
// caches synced, with the cause; a transient error is only remembered;
// after the sync, errors are left to the informers' retries.
func TestWiringWatchErrorFailsRunUntilSynced(t *testing.T) {
	refl := cache.NewReflectorWithOptions(&cache.ListWatch{}, &corev1.Secret{}, cache.NewStore(cache.MetaNamespaceKeyFunc), cache.ReflectorOptions{})
	secrets := schema.GroupResource{Resource: "secrets"}
	forbidden := apierrors.NewForbidden(secrets, "", errors.New(`User "bob" cannot list resource "secrets" in API group "" at the cluster scope`))

	for _, tc := range []struct {
		name    string
		err     error
		synced  bool
		fails   string
		records bool
	}{
		{name: "forbidden", err: forbidden, fails: `may not list or watch *v1.Secret: secrets is forbidden: User "bob" cannot list resource "secrets"`, records: true},
		{name: "not served", err: apierrors.NewNotFound(secrets, ""), fails: "is not served (is its CRD installed? run `liqo-auth-tui init`)", records: true},
		{name: "transient", err: errors.New("connection refused"), records: true},
		{name: "after sync", err: forbidden, synced: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, fail := context.WithCancelCause(context.Background())
			defer fail(nil)
			m := &Manager{}
			r := &wiring{fail: fail, lastErr: &m.lastListErr}
			r.syncDone.Store(tc.synced)
			r.watchError(ctx, refl, tc.err)
			if tc.fails == "" {
				assert.NoError(t, ctx.Err())
			} else {
				require.Error(t, context.Cause(ctx))
				assert.Contains(t, context.Cause(ctx).Error(), tc.fails)
			}
			if tc.records {
				require.Error(t, m.LastListError())
				assert.ErrorIs(t, m.LastListError(), tc.err)
			} else {
				assert.NoError(t, m.LastListError())
			}
		})
	}
}

func reconcileErrors(t *testing.T, controller string) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, reconciles.WithLabelValues(controller, "error").Write(&m))
	return m.GetCounter().GetValue()
}

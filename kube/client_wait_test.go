package kube

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// On a busy client, client-go's rate limiter refuses a request whose turn
// would come after the deadline before the deadline is there: a wait that
// ends so ran out of time, and says so (not "rate: Wait(n=1) ...").
func TestWaitRefusedByTheRateLimiterTimesOut(t *testing.T) {
	limiter := rate.NewLimiter(rate.Every(time.Hour), 1)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			if err := limiter.Wait(ctx); err != nil {
				return nil, errors.Join(errors.New("client rate limiter Wait returned an error"), err)
			}
			return &corev1.SecretList{}, nil
		},
		// As for Liqo's peering user: may list, not watch (WaitFor polls).
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("may not watch"))
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := WaitFor(ctx, lw, "the nonce", func(*corev1.Secret) (bool, error) { return false, nil })
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrWaitTimeout)
	assert.Contains(t, err.Error(), "the nonce")
	assert.NoError(t, ctx.Err(), "refused before the deadline")
}

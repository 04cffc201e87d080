package controller

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// syncFunc reconciles the object behind one key. It is level-triggered: it
// reads the current state and converges, so running it twice is harmless.
// An error retries the key with back-off; requeueAfter > 0 schedules a later
// re-check (certificate renewal). Errors that retrying cannot fix are
// reported with an Event and returned as nil.
type syncFunc func(ctx context.Context, key string) (requeueAfter time.Duration, err error)

// loop is one reconciler: a named, rate-limited queue of object keys and
// the sync that works them off.
type loop struct {
	name  string
	queue workqueue.TypedRateLimitingInterface[string]
	sync  syncFunc
	// afterSync, when set (tests), is told about every finished sync.
	afterSync func(loop, key string, err error)
	// activity, when set, counts the syncs under way across the run.
	activity *activity
}

func newLoop(name string, sync syncFunc, afterSync func(string, string, error)) *loop {
	return &loop{
		name:      name,
		queue:     workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter(), workqueue.TypedRateLimitingQueueConfig[string]{Name: name}),
		sync:      sync,
		afterSync: afterSync,
	}
}

// rateLimiter retries a failing key quickly at first (a handshake is a race
// of a few objects created in a row) and backs off to two minutes; the
// bucket bounds the overall retry rate.
func rateLimiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 2*time.Minute),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(50), 300)},
	)
}

// add enqueues the key of obj (namespace/name; tombstones are unwrapped).
func (l *loop) add(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err == nil {
		l.queue.Add(key)
	}
}

// handler enqueues every add, real update (not a resync) and delete.
func (l *loop) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    l.add,
		UpdateFunc: func(old, cur any) { enqueueIfChanged(old, cur, l.add) },
		DeleteFunc: l.add,
	}
}

// run starts workers that stop when the queue shuts down.
func (l *loop) run(ctx context.Context, workers int, wg *sync.WaitGroup) {
	for range workers {
		wg.Go(func() {
			for l.next(ctx) {
			}
		})
	}
}

func (l *loop) next(ctx context.Context) bool {
	key, quit := l.queue.Get()
	if quit {
		return false
	}
	defer l.queue.Done(key)
	l.activity.begin()
	defer l.activity.end()
	start := time.Now()
	after, err := l.safeSync(ctx, key)
	observeSync(l.name, time.Since(start), err)
	switch {
	case err != nil && ctx.Err() != nil:
		// Shutting down: the key is picked up again by the next run.
	case err != nil:
		logger := klog.FromContext(ctx)
		if apierrors.IsConflict(err) {
			logger = logger.V(4) // our cache was behind a write: routine
		}
		logger.Info("Reconcile failed, retrying", "controller", l.name, "key", key, "err", err.Error())
		l.queue.AddRateLimited(key)
	default:
		l.queue.Forget(key)
		if after > 0 {
			l.queue.AddAfter(key, after)
		}
	}
	if l.afterSync != nil {
		l.afterSync(l.name, key, err)
	}
	return true
}

// safeSync runs the sync of key, turning a panic into an error: the panic
// is logged with its stack, counted as a failed reconcile, and the key is
// retried with back-off like any failure, instead of killing the process
// (the wizard, whose terminal would stay in raw mode).
func (l *loop) safeSync(ctx context.Context, key string) (after time.Duration, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic in %s reconcile of %s: %v", l.name, key, p)
			klog.FromContext(ctx).Error(err, "Reconcile panicked", "controller", l.name, "key", key, "stack", string(debug.Stack()))
			after = 0
		}
	}()
	return l.sync(ctx, key)
}

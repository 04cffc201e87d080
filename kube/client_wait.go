package kube

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Lister and Watcher are the list/watch calls of a typed client.
type (
	Lister[L runtime.Object] func(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watcher                  func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
)

// ListWatch adapts a typed client's List and Watch, narrowed by tweak (for
// example a field or label selector), to a cache.ListerWatcher.
func ListWatch[L runtime.Object](list Lister[L], watchFn Watcher, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			tweak(&o)
			return list(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			tweak(&o)
			return watchFn(ctx, o)
		},
	}
}

// ByName narrows a list/watch to one object.
func ByName(name string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + name }
}

// BySelector narrows a list/watch with a label selector.
func BySelector(selector string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) { o.LabelSelector = selector }
}

// ErrWaitTimeout is returned when a wait's context expires.
var ErrWaitTimeout = errors.New("timed out waiting for the condition")

// PollInterval is how often a wait lists when it may not watch (liqoctl's
// interval, §9.1).
const PollInterval = time.Second

// ErrWatchForbidden stops a watch the kubeconfig may not make.
var ErrWatchForbidden = errors.New("watch forbidden")

// WaitFor watches the objects of lw until cond holds for one of them and
// returns that object. It is event-driven: no polling, unless the
// kubeconfig may list but not watch (Liqo's peering user may not watch
// Secrets nor Tenants): it then lists every PollInterval, as liqoctl does.
// A cond error ends the wait with that error. When ctx expires the error
// wraps ErrWaitTimeout and says what was awaited.
func WaitFor[T runtime.Object](ctx context.Context, lw cache.ListerWatcher, what string, cond func(T) (bool, error)) (T, error) {
	var zero T
	watchCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	inner := cache.ToListerWatcherWithContext(lw)
	lw = &cache.ListWatch{
		ListWithContextFunc: inner.ListWithContext,
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := inner.WatchWithContext(ctx, o)
			if apierrors.IsForbidden(err) {
				stop(ErrWatchForbidden)
			}
			return w, err
		},
	}
	ev, err := watchtools.UntilWithSync(watchCtx, lw, newObject[T](), nil, func(e watch.Event) (bool, error) {
		if e.Type == watch.Deleted {
			return false, nil
		}
		obj, ok := e.Object.(T)
		if !ok {
			return false, nil
		}
		return cond(obj)
	})
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(watchCtx), ErrWatchForbidden) {
		return pollFor(ctx, inner, what, cond)
	}
	if err != nil {
		if outOfTime(ctx, err) {
			return zero, fmt.Errorf("%w: %s", ErrWaitTimeout, what)
		}
		return zero, err
	}
	return ev.Object.(T), nil
}

// pollFor is WaitFor by listing every PollInterval (the first at once).
func pollFor[T runtime.Object](ctx context.Context, lw cache.ListerWithContext, what string, cond func(T) (bool, error)) (T, error) {
	var found T
	err := wait.PollUntilContextCancel(ctx, PollInterval, true, func(ctx context.Context) (bool, error) {
		list, err := lw.ListWithContext(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return false, err
		}
		for _, item := range items {
			obj, ok := item.(T)
			if !ok {
				continue
			}
			if done, err := cond(obj); err != nil || done {
				found = obj
				return done, err
			}
		}
		return false, nil
	})
	if err != nil {
		var zero T
		if outOfTime(ctx, err) {
			return zero, fmt.Errorf("%w: %s", ErrWaitTimeout, what)
		}
		return zero, err
	}
	return found, nil
}

// newObject returns an empty object of the pointer type T.
func newObject[T runtime.Object]() runtime.Object {
	var zero T
	return reflect.New(reflect.TypeOf(zero).Elem()).Interface().(runtime.Object)
}

// WaitForDeletion watches lw (one object, or those of a selector) until
// none is left, or returns immediately when there is none.
func WaitForDeletion(ctx context.Context, lw cache.ListerWatcher, objType runtime.Object, what string) error {
	var store cache.Store // the informer's: updated before each event is told
	_, err := watchtools.UntilWithSync(ctx, lw, objType,
		func(s cache.Store) (bool, error) { store = s; return len(s.List()) == 0, nil },
		func(watch.Event) (bool, error) { return len(store.List()) == 0, nil })
	if err != nil && outOfTime(ctx, err) {
		return fmt.Errorf("%w: %s", ErrWaitTimeout, what)
	}
	return err
}

// outOfTime tells whether a wait's error means its time ran out: ctx
// expired, or client-go's rate limiter refused a request because its turn
// would come after ctx's deadline (it says so before ctx expires, on a
// busy client: "client rate limiter Wait returned an error: rate: Wait(n=1)
// would exceed context deadline"; x/time/rate has no sentinel for it).
func outOfTime(ctx context.Context, err error) bool {
	return ctx.Err() != nil || strings.Contains(err.Error(), "would exceed context deadline")
}

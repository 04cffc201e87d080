package kube

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Observe calls report with the objects of lw once they are listed, and
// again after every change (deletions too), until ctx ends, when it
// returns nil; or the watch fails. Event-driven, like WaitFor; report runs
// on one goroutine at a time.
func Observe[T runtime.Object](ctx context.Context, lw cache.ListerWatcher, report func([]T)) error {
	var store cache.Store
	current := func() {
		items := store.List()
		out := make([]T, 0, len(items))
		for _, item := range items {
			if obj, ok := item.(T); ok {
				out = append(out, obj)
			}
		}
		report(out)
	}
	_, err := watchtools.UntilWithSync(ctx, lw, newObject[T](),
		func(s cache.Store) (bool, error) { store = s; current(); return false, nil },
		func(watch.Event) (bool, error) { current(); return false, nil })
	if ctx.Err() != nil {
		return nil
	}
	return err
}

package main

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// runInformer runs an informer until ctx ends, calling seen on every add
// and update, and returns once its cache synced.
func runInformer(ctx context.Context, lw cache.ListerWatcher, obj runtime.Object, seen func(any)) error {
	inf := cache.NewSharedIndexInformer(lw, obj, 0, nil)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, cur any) { seen(cur) }}); err != nil {
		return err
	}
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return errors.New("informer cache did not sync")
	}
	return nil
}

// runInformerWithDeletes runs an informer until ctx ends, telling seen
// every object added or updated (deleted false) and the key of every one
// deleted; it returns once its cache synced.
func runInformerWithDeletes(ctx context.Context, lw cache.ListerWatcher, obj runtime.Object, seen func(key string, obj any, deleted bool)) error {
	inf := cache.NewSharedIndexInformer(lw, obj, 0, nil)
	key := func(o any) string {
		k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(o)
		return k
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { seen(key(o), o, false) },
		UpdateFunc: func(_, o any) { seen(key(o), o, false) },
		DeleteFunc: func(o any) { seen(key(o), o, true) },
	}); err != nil {
		return err
	}
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return errors.New("informer cache did not sync")
	}
	return nil
}

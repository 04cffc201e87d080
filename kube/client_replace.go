package kube

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// replaceClient is the part of a typed client replaceObject needs.
type replaceClient[T runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// object is an API object of ours: metadata plus deep copy.
type object[T any] interface {
	runtime.Object
	metav1.Object
	DeepCopy() T
}

// replaceObject creates want, or gives the existing object want's labels,
// annotations and spec (setSpec copies the spec from want into the copy of
// existing), as liqoctl's create-or-update does. A no-op is not written.
func replaceObject[T object[T]](ctx context.Context, client replaceClient[T], kind string, want T, setSpec func(existing, want T)) (T, Change, error) {
	ch := Change{Object: kind + " " + want.GetNamespace() + "/" + want.GetName()}
	var zero T
	// Create first: a handshake's first run finds nothing, and saves the
	// Get; a re-run pays a refused create instead.
	obj := want.DeepCopy()
	obj.SetResourceVersion("")
	created, err := client.Create(ctx, obj, metav1.CreateOptions{})
	if err == nil {
		ch.Action = Created
		return created, ch, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return zero, ch, err
	}
	existing, err := client.Get(ctx, want.GetName(), metav1.GetOptions{})
	if err != nil {
		return zero, ch, err
	}
	updated := existing.DeepCopy()
	updated.SetLabels(mergeInto(updated.GetLabels(), want.GetLabels()))
	updated.SetAnnotations(mergeInto(updated.GetAnnotations(), want.GetAnnotations()))
	setSpec(updated, want)
	if equalJSON(existing, updated) {
		ch.Action = Unchanged
		return existing, ch, nil
	}
	res, err := client.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return zero, ch, err
	}
	ch.Action = Updated
	return res, ch, nil
}

package kube

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// FieldManager is the server-side-apply manager name of this tool.
const FieldManager = "liqo-auth-tui"

// Change records what a step did to one object.
type Change struct {
	Object string // e.g. "Namespace liqo"
	Action Action
}

// Action is what happened to an object.
type Action string

const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	Deleted   Action = "deleted"
)

func (c Change) String() string { return c.Object + " " + string(c.Action) }

type applier[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

// ServerSideApply applies obj (which must carry apiVersion and kind) and
// reports whether the server changed it: a no-op apply keeps the
// resourceVersion, so a second run reports Unchanged.
func ServerSideApply[T metav1.Object](ctx context.Context, client applier[T], kind string, obj metav1.Object) (Change, error) {
	change := Change{Object: kind + " " + obj.GetName()}
	before, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
	oldRV := ""
	switch {
	case err == nil:
		oldRV = before.GetResourceVersion()
	case !IsNotFound(err):
		return change, fmt.Errorf("reading %s: %w", change.Object, err)
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return change, err
	}
	force := true
	after, err := client.Patch(ctx, obj.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
	if err != nil {
		return change, fmt.Errorf("applying %s: %w", change.Object, err)
	}
	switch after.GetResourceVersion() {
	case oldRV:
		change.Action = Unchanged
	default:
		change.Action = Updated
		if oldRV == "" {
			change.Action = Created
		}
	}
	return change, nil
}

package kube

import (
	"encoding/json"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FinalizerPatch is the JSON merge patch that adds (present) or removes
// finalizer on obj, and whether there is anything to change. It carries
// obj's resourceVersion: a finalizer written meanwhile by someone else is
// a conflict, never lost.
func FinalizerPatch(obj metav1.Object, finalizer string, present bool) ([]byte, bool) {
	has := slices.Contains(obj.GetFinalizers(), finalizer)
	if has == present {
		return nil, false
	}
	list := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return f == finalizer })
	if present {
		list = append(list, finalizer)
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{ // strings and lists: cannot fail
		"resourceVersion": obj.GetResourceVersion(), "finalizers": list}})
	return patch, true
}

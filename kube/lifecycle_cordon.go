package kube

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// AllTenants lists the Tenants of every namespace: the consumers of this
// provider (§5).
func (c *Cluster) AllTenants(ctx context.Context) ([]authv1beta1.Tenant, error) {
	return c.TenantsIn(ctx, metav1.NamespaceAll)
}

// ReplicatedResourceSlices lists the provider's copies of the slices of a
// consumer ("" = of every consumer) in namespace ("" = all).
func (c *Cluster) ReplicatedResourceSlices(ctx context.Context, namespace, consumerID string) ([]authv1beta1.ResourceSlice, error) {
	sel := labels.Set{ReplicatedLabel: "true"}
	if consumerID != "" {
		sel[OriginIDLabel] = consumerID
	}
	list, err := c.Liqo.ResourceSlices(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// TenantConditionOf is the Tenant's condition, Active when unset (the
// CRD's default, §5.2).
func TenantConditionOf(t *authv1beta1.Tenant) authv1beta1.TenantCondition {
	if t.Spec.TenantCondition == "" {
		return authv1beta1.TenantConditionActive
	}
	return t.Spec.TenantCondition
}

// SetTenantCondition sets spec.tenantCondition of t as read (§5.5).
func (c *Cluster) SetTenantCondition(ctx context.Context, t *authv1beta1.Tenant, condition authv1beta1.TenantCondition) (*authv1beta1.Tenant, error) {
	return patchAsRead(ctx, c.Liqo.Tenants(t.Namespace), t, map[string]any{"spec": map[string]any{"tenantCondition": condition}})
}

// SliceCordoned tells whether the admin cordoned the slice itself
// (CordonResourceAnnotation), read as Liqo's quota creator reads it: set
// and not "false", "False" or "0".
func SliceCordoned(rs metav1.Object) bool {
	v, ok := rs.GetAnnotations()[CordonResourceAnnotation]
	return ok && v != "false" && v != "False" && v != "0"
}

// SetSliceCordon sets CordonResourceAnnotation on the slice as read, or
// removes it, as liqoctl cordon and uncordon resourceslice do.
func (c *Cluster) SetSliceCordon(ctx context.Context, rs *authv1beta1.ResourceSlice, cordon bool) (*authv1beta1.ResourceSlice, error) {
	var value any // JSON null removes the annotation
	if cordon {
		value = "true"
	}
	return patchAsRead(ctx, c.Liqo.ResourceSlices(rs.Namespace), rs,
		map[string]any{"metadata": map[string]any{"annotations": map[string]any{CordonResourceAnnotation: value}}})
}

// patchAsRead merge-patches the object with read's resourceVersion, so an
// object changed since it was read is refused (Conflict), not overwritten:
// what the admin saw and confirmed is what changes.
func patchAsRead[T metav1.Object](ctx context.Context, client applier[T], read metav1.Object, patch map[string]any) (T, error) {
	meta, _ := patch["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		patch["metadata"] = meta
	}
	meta["resourceVersion"] = read.GetResourceVersion()
	body, err := json.Marshal(patch)
	if err != nil {
		var none T
		return none, err
	}
	out, err := client.Patch(ctx, read.GetName(), types.MergePatchType, body, metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return out, fmt.Errorf("updating %s/%s: %w", read.GetNamespace(), read.GetName(), err)
	}
	return out, nil
}

package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Labels and annotation Liqo uses on the objects it replicated from a
// consumer, and on the ResourceSlices of a cordoned Tenant (§5.5).
const (
	replicatedLabel        = kube.ReplicatedLabel
	originIDLabel          = kube.OriginIDLabel
	cordonTenantAnnotation = kube.CordonTenantAnnotation
)

// namespaceMapsResource is Liqo's offloading API; without Liqo it is not
// served and there is nothing to delete.
var namespaceMapsResource = schema.GroupVersionResource{Group: "offloading.liqo.io", Version: "v1beta1", Resource: "namespacemaps"}

// applyCondition acts on spec.tenantCondition (§5.5): Active and Cordoned
// (un)mark the consumer's replicated ResourceSlices; Drained removes the
// consumer's bindings and replicated objects and ends the reconcile (done).
func (r *tenantReconciler) applyCondition(ctx context.Context, t *authv1beta1.Tenant, roles *kube.TenantClusterRoles) (done bool, err error) {
	switch t.Spec.TenantCondition {
	case authv1beta1.TenantConditionDrained:
		return true, r.drain(ctx, t, roles)
	case authv1beta1.TenantConditionCordoned:
		return false, r.cordonResourceSlices(ctx, t.Spec.ClusterID, true)
	case authv1beta1.TenantConditionActive, "":
		if r.o.HandshakeOnly {
			// Slices are not served here: no cordon to lift, and a first
			// request for them can cost the API server a second (it builds
			// the custom resource's storage then).
			return false, nil
		}
		fallthrough
	default:
		return false, r.cordonResourceSlices(ctx, t.Spec.ClusterID, false)
	}
}

func replicatedFrom(consumerID string) string {
	return labels.Set{replicatedLabel: "true", originIDLabel: consumerID}.String()
}

// cordonResourceSlices sets or removes the cordon annotation on the
// ResourceSlices replicated from the consumer.
func (r *tenantReconciler) cordonResourceSlices(ctx context.Context, consumerID string, cordon bool) error {
	slices := r.dyn.Resource(authv1beta1.ResourceSliceGroupVersionResource)
	if r.caches != nil && r.caches.slices != nil && r.caches.slices.HasSynced() {
		cached, err := r.caches.slices.GetIndexer().ByIndex(byOrigin, consumerID)
		if err == nil {
			for _, obj := range cached {
				rs := objectMeta(obj)
				if rs == nil || rs.GetLabels()[replicatedLabel] != "true" {
					continue
				}
				if err := r.cordonResourceSlice(ctx, slices, rs, cordon); err != nil {
					return err
				}
			}
			return nil
		}
	}
	// ResourceVersion "0" reads the API server's cache as it is: a
	// consistent list would wait for that cache to catch up with the latest
	// write anywhere (50–100ms) on every reconcile; a slice replicated a
	// moment ago is marked at the next one.
	list, err := slices.Namespace("").List(ctx, metav1.ListOptions{LabelSelector: replicatedFrom(consumerID), ResourceVersion: "0"})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing the ResourceSlices of cluster %s: %w", consumerID, err)
	}
	for i := range list.Items {
		if err := r.cordonResourceSlice(ctx, slices, &list.Items[i], cordon); err != nil {
			return err
		}
	}
	return nil
}

// cordonResourceSlice sets or removes the cordon annotation of one
// ResourceSlice, when it is not as wanted.
func (r *tenantReconciler) cordonResourceSlice(ctx context.Context, slices dynamic.NamespaceableResourceInterface, rs metav1.Object, cordon bool) error {
	_, marked := rs.GetAnnotations()[cordonTenantAnnotation]
	if marked == cordon {
		return nil
	}
	patch := `{"metadata":{"annotations":{"` + cordonTenantAnnotation + `":null}}}`
	if cordon {
		patch = `{"metadata":{"annotations":{"` + cordonTenantAnnotation + `":"true"}}}`
	}
	if _, err := slices.Namespace(rs.GetNamespace()).Patch(ctx, rs.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("cordoning ResourceSlice %s/%s: %w", rs.GetNamespace(), rs.GetName(), err)
	}
	return nil
}

// drain takes away what a drained consumer could use: its bindings and the
// ResourceSlices and NamespaceMaps replicated from it. No handshake check
// and no status update follow.
func (r *tenantReconciler) drain(ctx context.Context, t *authv1beta1.Tenant, roles *kube.TenantClusterRoles) error {
	tenantNS := t.Status.TenantNamespace
	if tenantNS == "" {
		tenantNS = t.Namespace
	}
	_, err := r.c.UnbindTenant(ctx, t.Spec.ClusterID, tenantNS, roles)
	r.forgetBindings(t.Spec.ClusterID, tenantNS, roles)
	if err != nil {
		r.events.warning(ctx, t, ReasonClusterRolesUnbindingFailed, err.Error())
		return err
	}
	r.events.normal(ctx, t, ReasonClusterRolesUnbindingSuccess, "ClusterRoles unbound")
	for _, res := range []struct {
		gvr    schema.GroupVersionResource
		reason string
		what   string
	}{
		{authv1beta1.ResourceSliceGroupVersionResource, ReasonResourceSlicesDeleted, "ResourceSlices"},
		{namespaceMapsResource, ReasonNamespaceMapsDeleted, "NamespaceMaps"},
	} {
		if err := r.deleteReplicated(ctx, res.gvr, t.Spec.ClusterID); err != nil {
			return fmt.Errorf("deleting the %s of cluster %s: %w", res.what, t.Spec.ClusterID, err)
		}
		r.events.normal(ctx, t, res.reason, res.what+" deleted")
	}
	return nil
}

// deleteReplicated deletes the objects of a resource replicated from the
// consumer, in every namespace (there is no cross-namespace deletecollection).
func (r *tenantReconciler) deleteReplicated(ctx context.Context, gvr schema.GroupVersionResource, consumerID string) error {
	res := r.dyn.Resource(gvr)
	list, err := res.Namespace("").List(ctx, metav1.ListOptions{LabelSelector: replicatedFrom(consumerID)})
	if apierrors.IsNotFound(err) {
		return nil // the API is not served
	}
	if err != nil {
		return err
	}
	for _, obj := range list.Items {
		if err := res.Namespace(obj.GetNamespace()).Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

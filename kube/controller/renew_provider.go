package controller

import (
	"bytes"
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Index of the replicated Renews by the slice they renew (namespace/name).
const bySliceRef = "sliceRef"

// renewStatusWriter is the provider's side of the provider-driven renewal
// (§10.2, v1.2.0+): the Tenant and ResourceSlice reconcilers renew the
// certificates by themselves; this copies the current authParams into the
// status of the consumer's replicated Renew, which the consumer's
// replicator brings back.
type renewStatusWriter struct {
	c       *kube.Cluster
	events  *events
	renews  cache.Indexer // replicated Renews, indexed byOrigin and bySliceRef
	tenants cache.Indexer // indexed byConsumer
	slices  cache.Indexer // replicated ResourceSlices
	warned  renewCSRWarnings
}

// renewIndexers index the replicated Renews by consumer and by slice.
var renewIndexers = cache.Indexers{
	byOrigin: originIndex,
	bySliceRef: func(obj any) ([]string, error) {
		if r, ok := obj.(*authv1beta1.Renew); ok && r.Spec.ResourceSliceRef != nil {
			return []string{r.Namespace + "/" + r.Spec.ResourceSliceRef.Name}, nil
		}
		return nil, nil
	},
}

func (w *renewStatusWriter) sync(ctx context.Context, key string) (time.Duration, error) {
	obj, exists, err := w.renews.GetByKey(key)
	if err != nil || !exists {
		return 0, err
	}
	renew := obj.(*authv1beta1.Renew)
	consumer := renew.Labels[kube.OriginIDLabel]
	if consumer == "" || renew.DeletionTimestamp != nil {
		return 0, nil
	}
	tenant, err := w.tenantOf(consumer, renew)
	if tenant == nil || err != nil {
		if err != nil {
			w.events.warning(ctx, renew, ReasonRenewRefused, err.Error())
		}
		return 0, nil // a Tenant appearing or changing brings it back
	}
	if id := renew.Spec.ConsumerClusterID; id != "" && id != consumer {
		w.events.warning(ctx, renew, ReasonRenewRefused, fmt.Sprintf("spec.consumerClusterID %s is not the consumer %s that replicated this Renew", id, consumer))
		return 0, nil
	}
	var params *authv1beta1.AuthParams
	switch renew.Spec.IdentityType {
	case authv1beta1.ControlPlaneIdentityType:
		params = tenant.Status.AuthParams
	case authv1beta1.ResourceSliceIdentityType:
		if renew.Spec.ResourceSliceRef == nil || renew.Spec.ResourceSliceRef.Name == "" {
			w.events.warning(ctx, renew, ReasonRenewRefused, "A ResourceSlice Renew needs spec.resourceSliceRef.name")
			return 0, nil
		}
		obj, exists, err := w.slices.GetByKey(renew.Namespace + "/" + renew.Spec.ResourceSliceRef.Name)
		if err != nil || !exists {
			return 0, err // the slice coming brings it back
		}
		slice := obj.(*authv1beta1.ResourceSlice)
		if slice.Labels[kube.OriginIDLabel] != consumer {
			return 0, nil
		}
		params = slice.Status.AuthParams
	default:
		w.events.warning(ctx, renew, ReasonRenewRefused, fmt.Sprintf("Unknown spec.identityType %q: want %s or %s",
			renew.Spec.IdentityType, authv1beta1.ControlPlaneIdentityType, authv1beta1.ResourceSliceIdentityType))
		return 0, nil
	}
	if params == nil || len(params.SignedCRT) == 0 {
		return 0, nil
	}
	// A Liqo v1.0–v1.1 consumer's Renew asks with a CSR (renew_v11_provider.go).
	w.checkAskedRenewal(ctx, renew, tenant, consumer)
	if p := renew.Status.AuthParams; p != nil && bytes.Equal(p.SignedCRT, params.SignedCRT) {
		return 0, nil
	}
	updated := renew.DeepCopy()
	updated.Status.AuthParams = params.DeepCopy()
	if _, err := w.c.Liqo.Renews(renew.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		if kube.IsNotFound(err) {
			return 0, nil
		}
		return 0, err
	}
	klog.FromContext(ctx).Info("Renew answered", "renew", klog.KObj(renew), "consumer", consumer, "type", renew.Spec.IdentityType)
	return 0, nil
}

// tenantOf finds the consumer's accepted Tenant and checks that the Renew
// is in its tenant namespace (the only one the consumer may write to): a
// label alone must not get another consumer's certificate. nil, nil: no
// accepted Tenant yet.
func (w *renewStatusWriter) tenantOf(consumer string, renew *authv1beta1.Renew) (*authv1beta1.Tenant, error) {
	tenants := tenantsOfCluster(w.tenants, consumer)
	var elsewhere string
	for _, t := range tenants {
		switch t.Status.TenantNamespace {
		case renew.Namespace:
			return t, nil
		case "":
		default:
			elsewhere = t.Status.TenantNamespace
		}
	}
	if elsewhere != "" {
		return nil, fmt.Errorf("not answered: this Renew says it comes from consumer %s, whose tenant namespace is %s, not %s", consumer, elsewhere, renew.Namespace)
	}
	// No Tenant of that consumer: a Renew in another consumer's tenant
	// namespace is refused now rather than left waiting.
	for _, t := range tenantsIn(w.tenants, renew.Namespace) {
		if t.Spec.ClusterID != consumer {
			return nil, fmt.Errorf("not answered: this Renew says it comes from consumer %s, but %s is the tenant namespace of consumer %s", consumer, renew.Namespace, t.Spec.ClusterID)
		}
	}
	return nil, nil
}

// renewsOfTenant enqueues the Renews of a Tenant's consumer.
func renewsOfTenant(l *loop, renews cache.Indexer) cache.ResourceEventHandler {
	return handlerFunc(func(obj any) {
		t, ok := obj.(*authv1beta1.Tenant)
		if !ok {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				t, _ = d.Obj.(*authv1beta1.Tenant)
			}
		}
		if t == nil {
			return
		}
		keys, _ := renews.IndexKeys(byOrigin, t.Spec.ClusterID)
		for _, k := range keys {
			l.queue.Add(k)
		}
	})
}

// renewsOfSlice enqueues the Renews of a replicated ResourceSlice.
func renewsOfSlice(l *loop, renews cache.Indexer) cache.ResourceEventHandler {
	return handlerFunc(func(obj any) {
		if o := objectMeta(obj); o != nil {
			keys, _ := renews.IndexKeys(bySliceRef, o.GetNamespace()+"/"+o.GetName())
			for _, k := range keys {
				l.queue.Add(k)
			}
		}
	})
}

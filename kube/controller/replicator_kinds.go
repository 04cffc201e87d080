package controller

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// replicable is a Liqo object the replicator copies to a provider.
type replicable interface {
	runtime.Object
	metav1.Object
}

// replicaKind says how to reach, copy and compare one replicated kind:
// the spec goes to the provider, the status comes back.
type replicaKind[T replicable, L runtime.Object] struct {
	kind     string // ResourceSlice, Renew
	resource string // resourceslices, renews
	client   func(c *kube.LiqoClient, namespace string) *gentype.ClientWithList[T, L]
	informer func(r *wiring, c *kube.Cluster, selector string, indexers cache.Indexers) (cache.SharedIndexInformer, error)
	newObj   func() T
	spec     func(T) any // a pointer to the spec, compared semantically
	status   func(T) any // a pointer to the status
	setSpec  func(dst, src T)
	setStat  func(dst, src T)
}

func (k replicaKind[T, L]) specEqual(a, b T) bool {
	return apiequality.Semantic.DeepEqual(k.spec(a), k.spec(b))
}

func (k replicaKind[T, L]) statusEqual(a, b T) bool {
	return apiequality.Semantic.DeepEqual(k.status(a), k.status(b))
}

var sliceKind = replicaKind[*authv1beta1.ResourceSlice, *authv1beta1.ResourceSliceList]{
	kind: authv1beta1.ResourceSliceKind, resource: authv1beta1.ResourceSliceResource,
	client:   (*kube.LiqoClient).ResourceSlices,
	informer: (*wiring).sliceInformer,
	newObj:   func() *authv1beta1.ResourceSlice { return &authv1beta1.ResourceSlice{} },
	spec:     func(o *authv1beta1.ResourceSlice) any { return &o.Spec },
	status:   func(o *authv1beta1.ResourceSlice) any { return &o.Status },
	setSpec: func(dst, src *authv1beta1.ResourceSlice) {
		dst.Spec = *src.Spec.DeepCopy()
	},
	setStat: func(dst, src *authv1beta1.ResourceSlice) {
		dst.Status = *src.Status.DeepCopy()
	},
}

var renewKind = replicaKind[*authv1beta1.Renew, *authv1beta1.RenewList]{
	kind: authv1beta1.RenewKind, resource: authv1beta1.RenewResource,
	client:   (*kube.LiqoClient).Renews,
	informer: (*wiring).renewInformer,
	newObj:   func() *authv1beta1.Renew { return &authv1beta1.Renew{} },
	spec:     func(o *authv1beta1.Renew) any { return &o.Spec },
	status:   func(o *authv1beta1.Renew) any { return &o.Status },
	setSpec: func(dst, src *authv1beta1.Renew) {
		dst.Spec = *src.Spec.DeepCopy()
	},
	setStat: func(dst, src *authv1beta1.Renew) {
		dst.Status = *src.Status.DeepCopy()
	},
}

// remoteGet reads the copy from the provider's informer once it synced,
// else from the provider.
func (k replicaKind[T, L]) remoteGet(ctx context.Context, rem *remote, name string) (T, bool, error) {
	var none T
	if inf := rem.informers[k.resource]; inf != nil && inf.HasSynced() {
		obj, exists, err := inf.GetStore().GetByKey(rem.namespace + "/" + name)
		if err != nil || !exists {
			return none, false, err
		}
		return obj.(T), true, nil
	}
	got, err := k.client(rem.liqo, rem.namespace).Get(ctx, name, metav1.GetOptions{})
	if kube.IsNotFound(err) {
		return none, false, nil
	}
	if err != nil {
		return none, false, err
	}
	return got, true, nil
}

// deleteCopy deletes the copy of that name on the provider when this
// consumer made it, and tells whether none is there (any more). A copy
// deleted now is gone once its deletion is seen (it may hold finalizers of
// the provider's). A Forbidden is returned: the caller decides.
func (k replicaKind[T, L]) deleteCopy(ctx context.Context, rem *remote, name, me string) (gone bool, err error) {
	existing, found, err := k.remoteGet(ctx, rem, name)
	if err != nil || !found || existing.GetLabels()[kube.OriginIDLabel] != me {
		return err == nil, err
	}
	if existing.GetDeletionTimestamp() != nil {
		return false, nil
	}
	uid := existing.GetUID()
	err = k.client(rem.liqo, rem.namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case kube.IsNotFound(err):
		return true, nil
	case apierrors.IsConflict(err):
		return false, nil // another copy took its place: looked at again when seen
	case err != nil:
		return false, err
	}
	klog.FromContext(ctx).Info("Replica deleted from provider", "kind", k.kind, "name", name, "provider", rem.providerID, "namespace", rem.namespace)
	return false, nil
}

// hold puts the replicator's finalizer on a local object about to be
// copied, and returns the object as written; false: it is gone.
func (k replicaKind[T, L]) hold(ctx context.Context, c *kube.Cluster, local T) (T, bool, error) {
	patch, change := kube.FinalizerPatch(local, kube.ReplicaFinalizer, true)
	if !change {
		return local, true, nil
	}
	held, err := k.client(c.Liqo, local.GetNamespace()).Patch(ctx, local.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
	if kube.IsNotFound(err) {
		return local, false, nil
	}
	return held, err == nil, err
}

// release takes the replicator's finalizer off local objects being deleted
// whose copy is gone: they go.
func (k replicaKind[T, L]) release(ctx context.Context, c *kube.Cluster, leaving []T) error {
	for _, o := range leaving {
		patch, change := kube.FinalizerPatch(o, kube.ReplicaFinalizer, false)
		if !change {
			continue
		}
		_, err := k.client(c.Liqo, o.GetNamespace()).Patch(ctx, o.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil && !kube.IsNotFound(err) {
			return err
		}
		klog.FromContext(ctx).V(1).Info("Replica gone: local object let go", "kind", k.kind, "object", klog.KObj(o))
	}
	return nil
}

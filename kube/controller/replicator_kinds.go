package controller

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/tools/cache"

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

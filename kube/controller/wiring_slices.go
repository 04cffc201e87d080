package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// wireSlicesProvider wires the provider's ResourceSlice reconciler (§10.1):
// it watches the slices replicated from consumers, and re-decides a
// consumer's slices when its Tenant changes (cordoned, drained, new key)
// and when its tenant namespace appears or changes (a slice waiting for it).
func (m *Manager) wireSlicesProvider(r *wiring, ev *events) error {
	slices, err := r.sliceInformer(m.c, kube.ReplicatedLabel+"=true", cache.Indexers{byOrigin: originIndex})
	if err != nil {
		return err
	}
	p := &sliceProvider{c: m.c, o: m.o, adv: r.adv, events: ev, slices: slices.GetIndexer(), namespaces: r.namespaces, csrs: r.csrs}
	if r.tenants != nil {
		p.tenants = r.tenants.GetIndexer()
	}
	l := r.loop("resourceslice-provider", p.sync, m.afterSync)
	if err := r.watch(slices, l.handler()); err != nil {
		return err
	}
	if err := r.watch(r.nsInformer, handlerFunc(func(obj any) {
		if id := remoteClusterID(obj); id != "" {
			enqueueByIndex(l, slices.GetIndexer(), byOrigin, id)
		}
	})); err != nil {
		return err
	}
	if r.tenants == nil {
		return nil
	}
	return r.watch(r.tenants, handlerFunc(func(obj any) {
		if t, ok := tombstoneFree(obj).(*authv1beta1.Tenant); ok {
			enqueueByIndex(l, slices.GetIndexer(), byOrigin, t.Spec.ClusterID)
		}
	}))
}

// wireSlicesConsumer wires the consumer's ResourceSlice CSR filler and
// Identity creator (§10.1): it watches the slices made here and the
// Identities made for them (a changed or deleted Identity is re-ensured)
// and the tenant namespaces they wait for.
func (m *Manager) wireSlicesConsumer(r *wiring, ev *events) error {
	slices, err := r.sliceInformer(m.c, kube.ReplicatedLabel+"!=true", nil)
	if err != nil {
		return err
	}
	identities, err := r.identityInformer(m.c)
	if err != nil {
		return err
	}
	c := &sliceConsumer{c: m.c, events: ev, slices: slices.GetIndexer(), identities: identities.GetIndexer(), namespaces: r.namespaces}
	l := r.loop("resourceslice-consumer", c.sync, m.afterSync)
	if err := r.watch(slices, l.handler()); err != nil {
		return err
	}
	// A slice made before its tenant namespace reached the namespace cache
	// (or got its labels) was skipped: the namespace brings it back.
	if err := r.watch(r.nsInformer, handlerFunc(func(obj any) {
		if o := objectMeta(obj); o != nil && o.GetLabels()[kube.TenantNamespaceLabel] != "" {
			for _, key := range slices.GetIndexer().ListKeys() {
				if ns, _, _ := cache.SplitMetaNamespaceKey(key); ns == o.GetName() {
					l.queue.Add(key)
				}
			}
		}
	})); err != nil {
		return err
	}
	return r.watch(identities, handlerFunc(func(obj any) {
		if o := objectMeta(obj); o != nil {
			if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == authv1beta1.ResourceSliceKind {
				l.queue.Add(o.GetNamespace() + "/" + ref.Name)
			}
		}
	}))
}

func originIndex(obj any) ([]string, error) {
	if o := objectMeta(obj); o != nil {
		if id := o.GetLabels()[originIDLabel]; id != "" {
			return []string{id}, nil
		}
	}
	return nil, nil
}

func tombstoneFree(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

func enqueueByIndex(l *loop, idx cache.Indexer, index, value string) {
	keys, err := idx.IndexKeys(index, value)
	if err != nil {
		return
	}
	for _, k := range keys {
		l.queue.Add(k)
	}
}

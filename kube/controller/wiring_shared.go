package controller

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Informers of the Liqo kinds that several reconcilers of one run read: one
// list and one watch per kind and selector, however many watch it.

// identityInformer sees every Identity (the kubeconfig writer, the renewer
// and the slice Identity creator).
func (r *wiring) identityInformer(c *kube.Cluster) (cache.SharedIndexInformer, error) {
	client := c.Liqo.Identities("")
	return r.sharedLiqo("identities", func() cache.ListerWatcher { return kube.ListWatch(client.List, client.Watch, all) },
		&authv1beta1.Identity{}, nil)
}

// renewInformer sees the Renews matching selector.
func (r *wiring) renewInformer(c *kube.Cluster, selector string, indexers cache.Indexers) (cache.SharedIndexInformer, error) {
	client := c.Liqo.Renews("")
	return r.sharedLiqo("renews?"+selector, func() cache.ListerWatcher {
		return kube.ListWatch(client.List, client.Watch, kube.BySelector(selector))
	}, &authv1beta1.Renew{}, indexers)
}

// sliceInformer sees the ResourceSlices matching selector.
func (r *wiring) sliceInformer(c *kube.Cluster, selector string, indexers cache.Indexers) (cache.SharedIndexInformer, error) {
	client := c.Liqo.ResourceSlices("")
	return r.sharedLiqo("resourceslices?"+selector, func() cache.ListerWatcher {
		return kube.ListWatch(client.List, client.Watch, kube.BySelector(selector))
	}, &authv1beta1.ResourceSlice{}, indexers)
}

// sharedLiqo returns the informer registered under key, building it on
// first use, with the indexes asked for added to it.
func (r *wiring) sharedLiqo(key string, lw func() cache.ListerWatcher, obj runtime.Object, indexers cache.Indexers) (cache.SharedIndexInformer, error) {
	if r.shared == nil {
		r.shared = map[string]cache.SharedIndexInformer{}
	}
	inf, ok := r.shared[key]
	if !ok {
		inf = r.liqoInformer(lw(), obj, cache.Indexers{})
		r.shared[key] = inf
	}
	have := inf.GetIndexer().GetIndexers()
	missing := cache.Indexers{}
	for name, f := range indexers {
		if _, ok := have[name]; !ok {
			missing[name] = f
		}
	}
	if len(missing) == 0 {
		return inf, nil
	}
	return inf, inf.AddIndexers(missing)
}

package controller

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Index of Tenants by spec.clusterID, to find the Tenant a nonce Secret or
// a tenant namespace is about.
const byClusterID = "clusterID"

// run holds the informers and loops of one Manager.Run.
type run struct {
	factories []informers.SharedInformerFactory
	informers []cache.SharedIndexInformer // Liqo types, outside the factories
	synced    []cache.DoneChecker
	loops     []*loop
	stopLiqo  context.CancelFunc
	liqoDone  sync.WaitGroup
}

// wire builds the informers and loops of the enabled sides. Every informer
// is narrowed by a label selector to the few objects Liqo cares about.
func (m *Manager) wire(ev *events) (*run, error) {
	r := &run{}
	namespaces := r.factory(m.c, kube.TenantNamespaceLabel).Core().V1().Namespaces()
	if err := r.watch(namespaces.Informer(), nil); err != nil {
		return nil, err
	}
	if m.o.Provider {
		if err := m.wireProvider(r, ev, namespaces.Informer(), namespaces.Lister()); err != nil {
			return nil, err
		}
	}
	if m.o.Consumer {
		if err := m.wireConsumer(r, ev, namespaces.Informer(), namespaces.Lister()); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (m *Manager) wireProvider(r *run, ev *events, nsInformer cache.SharedIndexInformer, nsLister corelisters.NamespaceLister) error {
	nonces := r.factory(m.c, kube.NonceLabel).Core().V1().Secrets()
	tenantClient := m.c.Liqo.Tenants("")
	tenants := r.liqoInformer(kube.ListWatch(tenantClient.List, tenantClient.Watch, all), &authv1beta1.Tenant{},
		cache.Indexers{byClusterID: func(obj any) ([]string, error) {
			return []string{obj.(*authv1beta1.Tenant).Spec.ClusterID}, nil
		}})

	tenantNS := tenantNamespaces{c: m.c, lister: nsLister}
	creator := r.loop("nonce-creator", (&nonceCreator{c: m.c, events: ev, secrets: nonces.Lister(), namespaces: tenantNS}).sync, m.afterSync)
	tenantLoop := r.loop("tenant", (&tenantReconciler{
		c: m.c, o: m.o, events: ev, dyn: m.dyn, tenants: tenants.GetIndexer(), namespaces: tenantNS,
		nonces: nonces.Lister(),
	}).sync, m.afterSync)

	tenantsOf := func(obj any) {
		if id := remoteClusterID(obj); id != "" {
			enqueueIndexed(tenantLoop, tenants.GetIndexer(), id)
		}
	}
	noncesOf := func(obj any) {
		if id := remoteClusterID(obj); id != "" {
			enqueueMatching(creator, nonces.Lister(), id)
		}
	}
	if err := r.watch(nonces.Informer(), creator.handler()); err != nil {
		return err
	}
	// A nonce filled or changed re-checks the Tenant signed over it.
	if err := r.watch(nonces.Informer(), handlerFunc(tenantsOf)); err != nil {
		return err
	}
	// A tenant namespace appearing unblocks its nonce and its Tenant.
	if err := r.watch(nsInformer, handlerFunc(func(obj any) { noncesOf(obj); tenantsOf(obj) })); err != nil {
		return err
	}
	if err := r.watch(tenants, tenantLoop.handler()); err != nil {
		return err
	}
	if !m.o.KeepCSRs {
		csrs := r.factory(m.c, kube.RemoteTenantCSRLabel).Certificates().V1().CertificateSigningRequests()
		cleaner := r.loop("csr-cleaner", (&csrCleaner{c: m.c, csrs: csrs.Lister(), grace: m.o.CertificateTimeout + csrCleanupMargin}).sync, m.afterSync)
		if err := r.watch(csrs.Informer(), cleaner.handler()); err != nil {
			return err
		}
	}
	return nil
}

func (m *Manager) wireConsumer(r *run, ev *events, nsInformer cache.SharedIndexInformer, nsLister corelisters.NamespaceLister) error {
	signed := r.factory(m.c, kube.SignedNonceLabel).Core().V1().Secrets()
	kubeconfigs := r.factory(m.c, kube.IdentityTypeLabel).Core().V1().Secrets()
	identityClient := m.c.Liqo.Identities("")
	identities := r.liqoInformer(kube.ListWatch(identityClient.List, identityClient.Watch, all), &authv1beta1.Identity{}, cache.Indexers{})

	signer := r.loop("nonce-signer", (&nonceSigner{c: m.c, events: ev, secrets: signed.Lister(),
		namespaces: tenantNamespaces{c: m.c, lister: nsLister}}).sync, m.afterSync)
	identityLoop := r.loop("identity", (&identityReconciler{
		c: m.c, events: ev, identities: identities.GetIndexer(), secrets: kubeconfigs.Lister(),
	}).sync, m.afterSync)

	if err := r.watch(signed.Informer(), signer.handler()); err != nil {
		return err
	}
	if err := r.watch(nsInformer, handlerFunc(func(obj any) {
		if id := remoteClusterID(obj); id != "" {
			enqueueMatching(signer, signed.Lister(), id)
		}
	})); err != nil {
		return err
	}
	if err := r.watch(identities, identityLoop.handler()); err != nil {
		return err
	}
	// The kubeconfig Secrets are owned: a change or deletion re-ensures them.
	return r.watch(kubeconfigs.Informer(), handlerFunc(func(obj any) {
		if s := objectMeta(obj); s != nil {
			if ref := metav1.GetControllerOf(s); ref != nil && ref.Kind == authv1beta1.IdentityKind &&
				ref.APIVersion == authv1beta1.GroupVersion.String() {
				identityLoop.queue.Add(s.GetNamespace() + "/" + ref.Name)
			}
		}
	}))
}

func all(*metav1.ListOptions) {}

// factory returns a new informer factory whose informers only see objects
// carrying the label key.
func (r *run) factory(c *kube.Cluster, labelKey string) informers.SharedInformerFactory {
	f := informers.NewSharedInformerFactoryWithOptions(c.Kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = labelKey }))
	r.factories = append(r.factories, f)
	return f
}

func (r *run) liqoInformer(lw cache.ListerWatcher, obj runtime.Object, indexers cache.Indexers) cache.SharedIndexInformer {
	inf := cache.NewSharedIndexInformer(lw, obj, 0, indexers)
	r.informers = append(r.informers, inf)
	return inf
}

func (r *run) loop(name string, sync syncFunc, afterSync func(string, string, error)) *loop {
	l := newLoop(name, sync, afterSync)
	r.loops = append(r.loops, l)
	return l
}

// watch registers h (when not nil) and makes the run wait for inf's cache
// and for h to have seen the initial list.
func (r *run) watch(inf cache.SharedIndexInformer, h cache.ResourceEventHandler) error {
	r.synced = append(r.synced, inf.HasSyncedChecker())
	if h == nil {
		return nil
	}
	reg, err := inf.AddEventHandler(h)
	if err != nil {
		return err
	}
	r.synced = append(r.synced, reg.HasSyncedChecker())
	return nil
}

func (r *run) start(ctx context.Context) {
	for _, f := range r.factories {
		f.Start(ctx.Done())
	}
	liqoCtx, cancel := context.WithCancel(ctx)
	r.stopLiqo = cancel
	for _, inf := range r.informers {
		r.liqoDone.Go(func() { inf.RunWithContext(liqoCtx) })
	}
}

// shutDownQueues lets the workers finish their current item and return.
func (r *run) shutDownQueues() {
	for _, l := range r.loops {
		l.queue.ShutDown()
	}
}

// stop stops the informers and waits for their goroutines.
func (r *run) stop() {
	if r.stopLiqo != nil {
		r.stopLiqo()
	}
	r.liqoDone.Wait()
	for _, f := range r.factories {
		f.Shutdown()
	}
}

// handlerFunc calls f on every add, real update and delete.
func handlerFunc(f func(obj any)) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    f,
		UpdateFunc: func(old, cur any) { enqueueIfChanged(old, cur, f) },
		DeleteFunc: f,
	}
}

// enqueueIfChanged skips resyncs: same resourceVersion, nothing to do.
func enqueueIfChanged(old, cur any, add func(any)) {
	o, c := objectMeta(old), objectMeta(cur)
	if o != nil && c != nil && o.GetResourceVersion() == c.GetResourceVersion() {
		return
	}
	add(cur)
}

// objectMeta returns the metadata of obj, unwrapping delete tombstones.
func objectMeta(obj any) metav1.Object {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, _ := obj.(metav1.Object)
	return o
}

func remoteClusterID(obj any) string {
	if o := objectMeta(obj); o != nil {
		return o.GetLabels()[kube.RemoteClusterIDLabel]
	}
	return ""
}

func enqueueIndexed(l *loop, idx cache.Indexer, value string) {
	keys, err := idx.IndexKeys(byClusterID, value)
	if err != nil {
		return
	}
	for _, k := range keys {
		l.queue.Add(k)
	}
}

func enqueueMatching(l *loop, lister corelisters.SecretLister, remoteID string) {
	secrets, err := lister.List(labels.SelectorFromSet(labels.Set{kube.RemoteClusterIDLabel: remoteID}))
	if err != nil {
		return
	}
	for _, s := range secrets {
		l.add(s)
	}
}

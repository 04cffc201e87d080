package controller

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/informers"
	corev1informers "k8s.io/client-go/informers/core/v1"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Index of replicated ResourceSlices by their consumer, and of objects by
// their remote-cluster-id label (Tenants: tenant_index.go).
const (
	byOrigin   = "originID"
	byRemoteID = "remoteClusterID"
)

// wiring holds the informers and loops of one Manager.Run.
type wiring struct {
	factories []informers.SharedInformerFactory
	informers []cache.SharedIndexInformer // Liqo types, outside the factories
	synced    []cache.DoneChecker
	loops     []*loop
	stopLiqo  context.CancelFunc
	liqoDone  sync.WaitGroup
	closers   []func() // run once the workers stopped
	activity  *activity

	// fail ends the run with a cause; lastErr keeps the last list error
	// seen before syncDone (both set by Run before start).
	fail     context.CancelCauseFunc
	lastErr  *atomic.Pointer[error]
	syncDone atomic.Bool

	// Shared with the ResourceSlice reconcilers (wiring_slices.go): the
	// tenant namespaces and their informer (set by wire), and the
	// provider's Tenants and CSR tracker (set by wireProvider; nil on a
	// consumer-only run).
	namespaces tenantNamespaces
	nsInformer cache.SharedIndexInformer
	tenants    cache.SharedIndexInformer
	csrs       *csrTracker

	shared map[string]cache.SharedIndexInformer // see sharedLiqo
	adv    *advertiser                          // the provider's (wireProvider)
}

// wire builds the informers and loops of the enabled sides. Every informer
// is narrowed by a label selector to the few objects Liqo cares about.
func (m *Manager) wire(ev *events) (*wiring, error) {
	r := &wiring{activity: ev.activity}
	namespaces := r.factoryWith(m.c, byLabel(kube.TenantNamespaceLabel), namespaceSkeleton).Core().V1().Namespaces()
	if err := namespaces.Informer().AddIndexers(byRemoteIDIndexers); err != nil {
		return nil, err
	}
	if err := r.watch(namespaces.Informer(), nil); err != nil {
		return nil, err
	}
	r.namespaces = tenantNamespaces{c: m.c, lister: namespaces.Lister(), index: namespaces.Informer().GetIndexer()}
	r.nsInformer = namespaces.Informer()
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
	// After the first handshake (§10): resource acquisition and renewal,
	// when their APIs are served (checkLifecycleAPIs).
	if !m.slicesServed || m.o.HandshakeOnly {
		return r, nil
	}
	if m.o.Provider {
		if err := m.wireSlicesProvider(r, ev); err != nil {
			return nil, err
		}
		if err := m.wireRenewProvider(r, ev); err != nil {
			return nil, err
		}
	}
	if m.o.Consumer {
		if err := m.wireSlicesConsumer(r, ev); err != nil {
			return nil, err
		}
		if err := m.wireRenewConsumer(r, ev); err != nil {
			return nil, err
		}
		if err := m.wireReplication(r, ev); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (m *Manager) wireProvider(r *wiring, ev *events, nsInformer cache.SharedIndexInformer, nsLister corelisters.NamespaceLister) error {
	r.adv = newAdvertiser(m.c, m.o)
	nonces := r.secrets(m.c, byLabel(kube.NonceLabel))
	if err := nonces.Informer().AddIndexers(byRemoteIDIndexers); err != nil {
		return err
	}
	tenantClient := m.c.Liqo.Tenants("")
	tenants := r.liqoInformer(kube.ListWatch(tenantClient.List, tenantClient.Watch, all), &authv1beta1.Tenant{}, tenantIndexers)
	_ = tenants.SetTransform((&sharedCA{}).transform) // before it runs: cannot fail
	// What the Tenant reconciler reads on every pass comes from caches: the
	// ClusterRoles to bind, the bindings made, the certificate cache
	// Secrets and the CSRs being signed. Our own writes are remembered
	// until the informers show them (mutation caches), so the pass that
	// a write triggers finds nothing to do and asks the API server nothing.
	roles := r.factory(m.c, tenantRolesSelector).Rbac().V1().ClusterRoles()
	bindings := r.bindings(m.c, byLabel(kube.ManagedByLabel+"="+kube.LiqoManagedByValue))
	certSecrets := r.secretsWith(m.c, func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + kube.RemoteCertSecretName
	}, certSecretSkeleton)
	csrs := r.factory(m.c, kube.RemoteTenantCSRLabel).Certificates().V1().CertificateSigningRequests()
	if err := csrs.Informer().AddIndexers(byRequestIndexers); err != nil {
		return err
	}
	tracker := newCSRTracker(m.c, csrs.Lister(), csrs.Informer().GetIndexer(), m.o.KeepCSRs)
	caches := &tenantCaches{
		tenants: newMutationCache(tenants.GetIndexer(), false, true),
		roles:   roles.Lister(),
		rbs:     bindings.RoleBindings().Lister(),
		crbs:    bindings.ClusterRoleBindings().Lister(),
		created: utilcache.NewLRUExpireCache(mutationCacheSize),
		certs:   newMutationCache(certSecrets.Informer().GetStore(), true, false),
		csrs:    tracker,
		slices:  m.resourceSliceInformer(r),
	}

	tenantNS := tenantNamespaces{c: m.c, lister: nsLister, index: nsInformer.GetIndexer()}
	creator := r.loop("nonce-creator", (&nonceCreator{c: m.c, events: ev, secrets: nonces.Lister(), namespaces: tenantNS}).sync, m.afterSync)
	tenantLoop := r.loop("tenant", (&tenantReconciler{
		c: m.c, o: m.o, adv: r.adv, events: ev, dyn: m.dyn, tenants: tenants.GetIndexer(), namespaces: tenantNS,
		nonces: nonces.Informer().GetIndexer(), caches: caches,
	}).sync, m.afterSync)
	r.closers = append(r.closers, tracker.flush)
	r.tenants, r.csrs = tenants, tracker

	tenantsOf := func(obj any) {
		if id := remoteClusterID(obj); id != "" {
			enqueueIndexed(tenantLoop, tenants.GetIndexer(), id)
		}
	}
	noncesOf := func(obj any) {
		if id := remoteClusterID(obj); id != "" {
			enqueueMatching(creator, nonces.Informer().GetIndexer(), id)
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
	if err := r.watch(tenants, caches.tenants.handler(tenantLoop.handler())); err != nil {
		return err
	}
	if err := r.watch(roles.Informer(), nil); err != nil {
		return err
	}
	// A binding deleted by someone else is made again: its Tenant looks
	// again, no longer trusting that we created it. One the informer shows
	// needs no remembering any more.
	bindingGone := cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { caches.forgetBinding(obj) },
		DeleteFunc: func(obj any) {
			if caches.forgetBinding(obj) {
				tenantsOf(obj)
			}
		},
	}
	for _, inf := range []cache.SharedIndexInformer{bindings.RoleBindings().Informer(), bindings.ClusterRoleBindings().Informer()} {
		if err := r.watch(inf, bindingGone); err != nil {
			return err
		}
	}
	if err := r.watch(certSecrets.Informer(), caches.certs.handler(nil)); err != nil {
		return err
	}
	if err := r.watch(csrs.Informer(), tracker.handler()); err != nil {
		return err
	}
	if !m.o.KeepCSRs {
		cleaner := r.loop("csr-cleaner", (&csrCleaner{c: m.c, csrs: csrs.Lister(), certs: certSecrets.Informer().GetStore(), namespaces: tenantNS, grace: m.o.CertificateTimeout + csrCleanupMargin, tracker: tracker}).sync, m.afterSync)
		if err := r.watch(csrs.Informer(), cleaner.handler()); err != nil {
			return err
		}
	}
	return nil
}

// resourceSliceInformer caches the ResourceSlices replicated from
// consumers (cordoning reads them on every Tenant pass). Nil when the API
// is not served: the reconciler then lists live.
func (m *Manager) resourceSliceInformer(r *wiring) cache.SharedIndexInformer {
	if !m.slicesServed {
		return nil
	}
	inf, err := r.sliceInformer(m.c, replicatedLabel+"=true", cache.Indexers{byOrigin: originIndex})
	if err != nil {
		return nil // not started yet: cannot fail
	}
	return inf
}

func (m *Manager) wireConsumer(r *wiring, ev *events, nsInformer cache.SharedIndexInformer, nsLister corelisters.NamespaceLister) error {
	signed := r.secrets(m.c, byLabel(kube.SignedNonceLabel))
	if err := signed.Informer().AddIndexers(byRemoteIDIndexers); err != nil {
		return err
	}
	kubeconfigs := r.secrets(m.c, byLabel(kube.IdentityTypeLabel))
	identities, err := r.identityInformer(m.c)
	if err != nil {
		return err
	}

	signer := r.loop("nonce-signer", (&nonceSigner{c: m.c, events: ev, secrets: signed.Lister(),
		namespaces: tenantNamespaces{c: m.c, lister: nsLister, index: nsInformer.GetIndexer()}}).sync, m.afterSync)
	identityLoop := r.loop("identity", (&identityReconciler{
		c: m.c, events: ev, identities: identities.GetIndexer(), secrets: kubeconfigs.Lister(),
	}).sync, m.afterSync)

	if err := r.watch(signed.Informer(), signer.handler()); err != nil {
		return err
	}
	if err := r.watch(nsInformer, handlerFunc(func(obj any) {
		if id := remoteClusterID(obj); id != "" {
			enqueueMatching(signer, signed.Informer().GetIndexer(), id)
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
// matching the label selector (often just a label key).
func (r *wiring) factory(c *kube.Cluster, labelSelector string) informers.SharedInformerFactory {
	return r.factoryWith(c, byLabel(labelSelector), stripManagedFields)
}

func byLabel(selector string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) { o.LabelSelector = selector }
}

// secrets and bindings are informers without the factory's default index
// by namespace: nothing lists these kinds by namespace (their listers Get
// by key), and each tenant namespace would cost a set of its own in that
// index, about 400 bytes per object (a tenth of the heap at 10,000 Tenants).
func (r *wiring) secrets(c *kube.Cluster, tweak func(*metav1.ListOptions)) corev1informers.SecretInformer {
	return r.secretsWith(c, tweak, stripManagedFields)
}

// secretsWith is secrets whose objects go through transform.
func (r *wiring) secretsWith(c *kube.Cluster, tweak func(*metav1.ListOptions), transform cache.TransformFunc) corev1informers.SecretInformer {
	f := r.factoryWith(c, tweak, transform)
	f.InformerFor(&corev1.Secret{}, func(cs kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return corev1informers.NewFilteredSecretInformer(cs, metav1.NamespaceAll, resync, cache.Indexers{}, tweak)
	})
	return f.Core().V1().Secrets()
}

func (r *wiring) bindings(c *kube.Cluster, tweak func(*metav1.ListOptions)) rbacinformers.Interface {
	f := r.factoryWith(c, tweak, bindingSkeleton)
	f.InformerFor(&rbacv1.RoleBinding{}, func(cs kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return rbacinformers.NewFilteredRoleBindingInformer(cs, metav1.NamespaceAll, resync, cache.Indexers{}, tweak)
	})
	return f.Rbac().V1()
}

// factoryWith returns a new informer factory whose lists and watches are
// narrowed by tweak and whose objects go through transform before they are
// cached.
func (r *wiring) factoryWith(c *kube.Cluster, tweak func(*metav1.ListOptions), transform cache.TransformFunc) informers.SharedInformerFactory {
	f := informers.NewSharedInformerFactoryWithOptions(c.Kube, 0, informers.WithTweakListOptions(tweak),
		informers.WithTransform(transform))
	r.factories = append(r.factories, f)
	return f
}

func (r *wiring) liqoInformer(lw cache.ListerWatcher, obj runtime.Object, indexers cache.Indexers) cache.SharedIndexInformer {
	inf := cache.NewSharedIndexInformer(lw, obj, 0, indexers)
	_ = inf.SetTransform(stripManagedFields) // before it runs: cannot fail
	r.informers = append(r.informers, inf)
	return inf
}

func (r *wiring) loop(name string, sync syncFunc, afterSync func(string, string, error)) *loop {
	l := newLoop(name, sync, afterSync)
	l.activity = r.activity
	r.loops = append(r.loops, l)
	return l
}

// watch registers h (when not nil) and makes the run wait for inf's cache
// and for h to have seen the initial list.
func (r *wiring) watch(inf cache.SharedIndexInformer, h cache.ResourceEventHandler) error {
	// Set again for an informer watched twice: same handler, not started yet.
	if err := inf.SetWatchErrorHandlerWithContext(r.watchError); err != nil {
		return err
	}
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

// watchError logs a list or watch error as client-go does and, until the
// caches synced, ends the run when retrying cannot help: the list is
// forbidden, or the resource is not served (a CRD missing).
func (r *wiring) watchError(ctx context.Context, refl *cache.Reflector, err error) {
	cache.DefaultWatchErrorHandler(ctx, refl, err)
	if r.syncDone.Load() || err == nil {
		return
	}
	what := refl.TypeDescription()
	wrapped := fmt.Errorf("controller: listing %s: %w", what, err)
	if r.lastErr != nil {
		r.lastErr.Store(&wrapped)
	}
	if r.fail == nil {
		return
	}
	switch {
	case apierrors.IsForbidden(err):
		r.fail(fmt.Errorf("controller: the controllers may not list or watch %s: %w", what, err))
	case apierrors.IsNotFound(err):
		r.fail(fmt.Errorf("controller: %s is not served (is its CRD installed? run `liqo-auth-tui init`): %w", what, err))
	}
}

func (r *wiring) start(ctx context.Context) {
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
func (r *wiring) shutDownQueues() {
	for _, l := range r.loops {
		l.queue.ShutDown()
	}
}

// stop finishes what the workers left under way, stops the informers and
// waits for their goroutines.
func (r *wiring) stop() {
	for _, c := range r.closers {
		c()
	}
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

// enqueueIndexed queues the Tenants of cluster id.
func enqueueIndexed(l *loop, idx cache.Indexer, id string) {
	for _, t := range tenantsOfCluster(idx, id) {
		l.add(t)
	}
}

func enqueueMatching(l *loop, idx cache.Indexer, remoteID string) {
	objs, err := idx.ByIndex(byRemoteID, remoteID)
	if err != nil {
		return
	}
	for _, obj := range objs {
		l.add(obj)
	}
}

// byRemoteIDIndexers index objects by their liqo.io/remote-cluster-id label:
// a lookup per reconcile must not scan every tenant namespace or nonce.
var byRemoteIDIndexers = cache.Indexers{byRemoteID: func(obj any) ([]string, error) {
	if id := remoteClusterID(obj); id != "" {
		return []string{id}, nil
	}
	return nil, nil
}}

// byRemoteIDMatching returns the objects of idx labelled with remoteID and
// matching set.
func byRemoteIDMatching(idx cache.Indexer, remoteID string, set labels.Set) ([]any, error) {
	objs, err := idx.ByIndex(byRemoteID, remoteID)
	if err != nil {
		return nil, err
	}
	sel := labels.SelectorFromSet(set)
	out := objs[:0:0]
	for _, obj := range objs {
		if o := objectMeta(obj); o != nil && sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, obj)
		}
	}
	return out, nil
}

package controller

import (
	"context"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// mutationCacheSize bounds the own writes remembered per kind: enough for
// a burst of a few thousand Tenants in flight.
const mutationCacheSize = 8192

// ownWriteTTL is how long an own write is remembered after the informer
// should have shown it (it normally does within milliseconds).
const ownWriteTTL = time.Minute

// tenantCaches are what the Tenant reconciler reads instead of asking the
// API server on every pass. Each lookup falls back to a live request when
// the cache cannot settle it; nil fields (or a nil tenantCaches) mean live.
type tenantCaches struct {
	tenants *mutationCache // Tenants, with our finalizer and status writes
	roles   rbaclisters.ClusterRoleLister
	rbs     rbaclisters.RoleBindingLister        // labelled managed-by=liqo
	crbs    rbaclisters.ClusterRoleBindingLister // labelled managed-by=liqo
	created *utilcache.LRUExpireCache            // bindings we created, until their informer shows them
	certs   *mutationCache                       // liqo-remote-certificate Secrets, with our writes
	csrs    *csrTracker
	slices  cache.SharedIndexInformer // replicated ResourceSlices (metadata); nil: live
}

// mutationCache is client-go's MutationCache kept up to date by the
// informer it sits on. It also knows the resourceVersions of our own
// writes, whose echo from the informer is not passed on: the pass that
// wrote an object already converged it, so another pass would find nothing
// to do (and a burst of Tenants would pay for it).
type mutationCache struct {
	cache.MutationCache
	store cache.Store               // the informer's
	own   *utilcache.LRUExpireCache // key -> resourceVersion written by us; nil: echoes are passed on
}

// newMutationCache sits on an informer's store; echoes tells whether the
// echoes of our writes are held back (handler with a next).
func newMutationCache(store cache.Store, includeAdds, echoes bool) *mutationCache {
	m := &mutationCache{
		MutationCache: cache.NewIntegerResourceVersionMutationCacheWithOptions(klog.Background(), store,
			cache.MutationCacheOptions{TTL: ownWriteTTL, IncludeAdds: includeAdds, MaxCacheSize: mutationCacheSize}),
		store: store,
	}
	if echoes {
		m.own = utilcache.NewLRUExpireCache(mutationCacheSize)
	}
	return m
}

// wrote records obj, just returned by a write of ours. Under load the
// informer often shows the write before its response arrives: then there
// is nothing to remember (a copy kept would stay until its TTL, one per
// Tenant of a burst) and its echo has gone by already.
func (m *mutationCache) wrote(obj runtime.Object) {
	o := objectMeta(obj)
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if o == nil || err != nil {
		return
	}
	if seen, ok, _ := m.store.GetByKey(key); ok && !versionBefore(seen, o.GetResourceVersion()) {
		return
	}
	m.Mutation(obj)
	if m.own != nil {
		m.own.Add(key, o.GetResourceVersion(), ownWriteTTL)
	}
}

// versionBefore tells whether obj's resourceVersion is below rv (both etcd's
// integers; one that does not parse counts as older).
func versionBefore(obj any, rv string) bool {
	o := objectMeta(obj)
	if o == nil {
		return true
	}
	have, err1 := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	want, err2 := strconv.ParseUint(rv, 10, 64)
	return err1 != nil || err2 != nil || have < want
}

// echo tells (once) whether obj is the informer showing a write of ours.
func (m *mutationCache) echo(obj any) bool {
	if m.own == nil {
		return false
	}
	o := objectMeta(obj)
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if o == nil || err != nil {
		return false
	}
	rv, ok := m.own.Get(key)
	if !ok || rv != o.GetResourceVersion() {
		return false
	}
	m.own.Remove(key)
	return true
}

// handler tells the cache what the informer saw, then passes it on to next
// (when not nil).
func (m *mutationCache) handler(next cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := obj.(runtime.Object); ok {
				m.OnAddOrUpdate(o)
			}
			if next != nil {
				next.OnAdd(obj, false)
			}
		},
		UpdateFunc: func(old, cur any) {
			if o, ok := cur.(runtime.Object); ok {
				m.OnAddOrUpdate(o)
			}
			if next != nil && !m.echo(cur) {
				next.OnUpdate(old, cur)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if o, ok := obj.(runtime.Object); ok {
				m.OnDelete(o)
			}
			if next != nil {
				next.OnDelete(obj)
			}
		},
	}
}

// tenantRolesSelector finds both kinds of ClusterRoles bound for consumers
// (one informer for the two selectors of kube).
var tenantRolesSelector = func() string {
	key, values := "", []string{}
	for _, sel := range []string{kube.RemoteControlPlaneRoleSelector, kube.RemoteClusterWideRoleSelector} {
		set, err := labels.ConvertSelectorToLabelsMap(sel)
		if err != nil || len(set) != 1 {
			panic("controller: unexpected ClusterRole selector " + sel)
		}
		for k, v := range set {
			if key != "" && key != k {
				panic("controller: ClusterRole selectors on different keys")
			}
			key, values = k, append(values, v)
		}
	}
	r, err := labels.NewRequirement(key, selection.In, values)
	if err != nil {
		panic(err)
	}
	return labels.NewSelector().Add(*r).String()
}()

// tenantRoles is the setup check (§6.2 step 0) from the cache; when it
// lacks either kind of ClusterRole, the API server is asked (and says what
// is missing).
func (r *tenantReconciler) tenantRoles(ctx context.Context) (*kube.TenantClusterRoles, error) {
	if r.caches != nil && r.caches.roles != nil {
		names := func(selector string) []string {
			sel, err := labels.Parse(selector)
			if err != nil {
				return nil
			}
			list, err := r.caches.roles.List(sel)
			if err != nil {
				return nil
			}
			out := make([]string, 0, len(list))
			for _, cr := range list {
				out = append(out, cr.Name)
			}
			slices.Sort(out) // the order of a live list
			return out
		}
		cp, cw := names(kube.RemoteControlPlaneRoleSelector), names(kube.RemoteClusterWideRoleSelector)
		if len(cp) > 0 && len(cw) > 0 {
			return &kube.TenantClusterRoles{ControlPlane: cp, ClusterWide: cw}, nil
		}
	}
	return r.c.TenantRoles(ctx)
}

// tenant returns the freshest Tenant known: the informer's, or our last
// write of it when the informer has not shown that yet.
func (r *tenantReconciler) tenant(key string) (*authv1beta1.Tenant, bool, error) {
	var (
		obj    any
		exists bool
		err    error
	)
	if r.caches != nil && r.caches.tenants != nil {
		obj, exists, err = r.caches.tenants.GetByKey(key)
	} else {
		obj, exists, err = r.tenants.GetByKey(key)
	}
	if err != nil || !exists {
		return nil, false, err
	}
	return obj.(*authv1beta1.Tenant).DeepCopy(), true, nil
}

// wrote remembers a Tenant we updated.
func (r *tenantReconciler) wrote(t *authv1beta1.Tenant) {
	if r.caches != nil && r.caches.tenants != nil {
		r.caches.tenants.wrote(t.DeepCopy())
	}
}

// bindingKnown tells whether a binding exists, from the informer or from
// our recent creations; nil means ask the API server.
func (r *tenantReconciler) roleBindingExists() func(namespace, name string) bool {
	if r.caches == nil || r.caches.rbs == nil {
		return nil
	}
	return func(namespace, name string) bool {
		if _, err := r.caches.rbs.RoleBindings(namespace).Get(name); err == nil {
			return true
		}
		_, ok := r.caches.created.Get("rb/" + namespace + "/" + name)
		return ok
	}
}

func (r *tenantReconciler) clusterRoleBindingExists() func(name string) bool {
	if r.caches == nil || r.caches.crbs == nil {
		return nil
	}
	return func(name string) bool {
		if _, err := r.caches.crbs.Get(name); err == nil {
			return true
		}
		_, ok := r.caches.created.Get("crb/" + name)
		return ok
	}
}

// rememberBindings records the bindings just created, so that the next
// pass does not create them again before their informer shows them.
func (r *tenantReconciler) rememberBindings(kind, namespace string, changes []kube.Change, names []string) {
	if r.caches == nil || r.caches.created == nil {
		return
	}
	for i, ch := range changes {
		if ch.Action != kube.Created || i >= len(names) {
			continue
		}
		key := kind + "/" + names[i]
		if namespace != "" {
			key = kind + "/" + namespace + "/" + names[i]
		}
		r.caches.created.Add(key, struct{}{}, ownWriteTTL)
	}
}

// forgetBinding drops a RoleBinding or ClusterRoleBinding from our recent
// creations: its informer shows it now, or it was deleted. False for
// anything else.
func (c *tenantCaches) forgetBinding(obj any) bool {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		c.created.Remove("rb/" + b.Namespace + "/" + b.Name)
	case *rbacv1.ClusterRoleBinding:
		c.created.Remove("crb/" + b.Name)
	default:
		return false
	}
	return true
}

// forgetBindings drops the bindings of a consumer from our recent
// creations: they were just deleted (drain, deletion).
func (r *tenantReconciler) forgetBindings(consumerID, namespace string, roles *kube.TenantClusterRoles) {
	if r.caches == nil || r.caches.created == nil {
		return
	}
	cp, cw := []string{kube.RemoteControlPlaneClusterRole}, []string{kube.RemoteClusterWideClusterRole}
	if roles != nil {
		cp, cw = append(cp, roles.ControlPlane...), append(cw, roles.ClusterWide...)
	}
	for _, name := range roleBindingNames(cp) {
		r.caches.created.Remove("rb/" + namespace + "/" + name)
	}
	for _, name := range clusterRoleBindingNames(cw, consumerID) {
		r.caches.created.Remove("crb/" + name)
	}
}

// cachedCertificate is §6.3 step 1 from the cache when it can settle it:
// the certificate cached for csr (nil when there is none or it is due for
// renewal) and the cache Secret as last seen (nil: there is none; from the
// cache, a skeleton: see certSecretSkeleton). inStatus is the certificate in
// the Tenant's status. The cache settles the two usual cases: no Secret and
// no certificate in the status (a Secret created a moment ago by someone
// else is caught when storing: Create conflicts), and a Secret holding this
// CSR and the status certificate, not due for renewal. Anything else is
// read live.
func (r *tenantReconciler) cachedCertificate(ctx context.Context, namespace string, csr, inStatus []byte, now time.Time) ([]byte, *corev1.Secret, error) {
	if r.caches != nil && r.caches.certs != nil {
		obj, exists, err := r.caches.certs.GetByKey(namespace + "/" + kube.RemoteCertSecretName)
		if err == nil && !exists && inStatus == nil {
			return nil, nil, nil
		}
		if s, ok := obj.(*corev1.Secret); ok && exists && inStatus != nil &&
			skeletonHolds(s, certSkeletonCSRKey, csr) && skeletonHolds(s, certSkeletonCertKey, inStatus) {
			if due, _, err := renewalDue(inStatus, now); err == nil && !due {
				return inStatus, s, nil
			}
		}
	}
	s, err := r.c.Kube.CoreV1().Secrets(namespace).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	if kube.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	cert, err := kube.CertificateFromSecret(s, csr)
	return cert, s, err
}

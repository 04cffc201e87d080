package peerings

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// DefaultDebounce gathers a burst of changes (a handshake writes
// several objects in a row) into one new overview.
const DefaultDebounce = 100 * time.Millisecond

// Watch keeps the overview of c (and of o.Remote) up to date from
// watches, not a timer: informers on every kind Read lists; each change,
// after o.Debounce (0: DefaultDebounce) without another, makes a new
// []handshake.Peering. The first comes once every informer has listed. The channel
// holds only the latest overview (a slow reader skips stale ones) and is
// closed when ctx ends. The error is what made the first lists fail.
func Watch(ctx context.Context, c *kube.Cluster, o Options) (<-chan []handshake.Peering, error) {
	ctx, cancel := context.WithCancel(ctx)
	changed := make(chan struct{}, 1)
	local, err := startPeeringInformers(ctx, c, changed)
	if err != nil {
		cancel()
		return nil, err
	}
	var remote *peeringInformers
	if o.Remote != nil {
		if remote, err = startPeeringInformers(ctx, o.Remote, changed); err != nil {
			cancel()
			return nil, step.Scoped(handshake.Remote, err)
		}
	}
	debounce := o.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	out := make(chan []handshake.Peering, 1)
	emit := func() {
		var other *Objects
		if remote != nil {
			other = remote.snapshot()
		}
		mine := local.snapshot()
		o.tell(mine, other)
		latestOnly(out, RowsOf(mine, other, o.Time()))
	}
	emit()
	go func() {
		defer cancel()
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
			// Quiet for debounce: the burst is over.
			for quiet := false; !quiet; {
				select {
				case <-ctx.Done():
					return
				case <-changed:
				case <-time.After(debounce):
					quiet = true
				}
			}
			emit()
		}
	}()
	return out, nil
}

// latestOnly replaces what out holds with rows.
func latestOnly(out chan []handshake.Peering, rows []handshake.Peering) {
	for {
		select {
		case out <- rows:
			return
		default:
		}
		select {
		case <-out:
		default:
		}
	}
}

// peeringInformers are one cluster's informers, one per kind Read lists.
type peeringInformers struct {
	localID                                                                                  string
	release                                                                                  kube.LiqoRelease
	namespaces, secrets, liqo0xSecrets, tenants, identities, slices, renews, foreignClusters cache.SharedIndexInformer
}

// startPeeringInformers starts c's informers, each change signalled on
// changed, and waits until all have listed.
func startPeeringInformers(ctx context.Context, c *kube.Cluster, changed chan struct{}) (*peeringInformers, error) {
	p := &peeringInformers{}
	c, err := c.WithProtobuf()
	if err != nil {
		return nil, err
	}
	if p.localID, err = c.ClusterID(ctx); err != nil && !kube.IsNotFoundOrNoID(err) {
		p.localID = "" // not readable: no join
	}
	if p.release, err = c.DetectRelease(ctx); err != nil {
		return nil, err
	}
	p.namespaces = newOverviewInformer(c.NamespacesListWatch(noTweak), &corev1.Namespace{})
	p.secrets = newOverviewInformer(c.SecretsListWatch(metav1.NamespaceAll, kube.BySelector(peeringSecretSelector)), &corev1.Secret{})
	p.liqo0xSecrets = newOverviewInformer(c.SecretsListWatch(metav1.NamespaceAll, kube.BySelector(liqo0xSecretSelector)), &corev1.Secret{})
	informers := []cache.SharedIndexInformer{p.namespaces, p.secrets, p.liqo0xSecrets}
	// Kinds the cluster does not serve stay without an informer (it would
	// fail its lists forever).
	if serves, err := c.ServesResource(authv1beta1.GroupVersion.String(), authv1beta1.TenantResource); err == nil && serves {
		all := metav1.NamespaceAll
		p.tenants = newOverviewInformer(c.TenantsListWatch(all, noTweak), &authv1beta1.Tenant{})
		p.identities = newOverviewInformer(c.IdentitiesListWatch(all, noTweak), &authv1beta1.Identity{})
		p.slices = newOverviewInformer(c.ResourceSlicesListWatch(all, noTweak), &authv1beta1.ResourceSlice{})
		p.renews = newOverviewInformer(c.RenewsListWatch(all, noTweak), &authv1beta1.Renew{})
		informers = append(informers, p.tenants, p.identities, p.slices, p.renews)
	}
	if serves, err := c.ServesResource(kube.Liqo0xDiscoveryGroupVersion, "foreignclusters"); err == nil && serves {
		lw, err := liqo0x.On(c).ForeignClustersListWatch()
		if err != nil {
			return nil, err
		}
		p.foreignClusters = newOverviewInformer(lw, &unstructured.Unstructured{})
		informers = append(informers, p.foreignClusters)
	}
	return p, runInformers(ctx, c, informers, changed)
}

// runInformers starts the informers and waits for their first lists; a
// list error before then (forbidden, unreachable) is returned.
func runInformers(ctx context.Context, c *kube.Cluster, informers []cache.SharedIndexInformer, changed chan struct{}) error {
	syncCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var once sync.Once
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { signal() },
		UpdateFunc: func(any, any) { signal() },
		DeleteFunc: func(any) { signal() },
	}
	checkers := make([]cache.DoneChecker, 0, len(informers))
	for _, inf := range informers {
		_ = inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
			once.Do(func() { stop(err) }) // only the first lists' error counts: later ones retry
		})
		reg, err := inf.AddEventHandler(handler)
		if err != nil {
			return err
		}
		checkers = append(checkers, reg.HasSyncedChecker())
		go inf.RunWithContext(ctx)
	}
	// Event-driven: done when every informer has listed and handed its
	// objects to the handler.
	if !cache.WaitFor(syncCtx, "", checkers...) {
		if err := context.Cause(syncCtx); err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("watching the peerings: %w", c.Reach(err))
		}
		return ctx.Err()
	}
	// From here on the informers retry on errors.
	once.Do(func() {})
	return nil
}

func noTweak(*metav1.ListOptions) {}

// newOverviewInformer is an informer without resync whose objects keep no
// managed fields.
func newOverviewInformer(lw cache.ListerWatcher, obj runtime.Object) cache.SharedIndexInformer {
	inf := cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{})
	_ = inf.SetTransform(func(o any) (any, error) {
		if m, err := meta.Accessor(o); err == nil {
			m.SetManagedFields(nil)
		}
		return o, nil
	}) // before it runs: cannot fail
	return inf
}

// snapshot reads the informers' stores as Read's lists.
func (p *peeringInformers) snapshot() *Objects {
	o := &Objects{LocalID: p.localID, Release: p.release}
	o.Namespaces = storeItems[corev1.Namespace](p.namespaces, isTenantNamespace)
	o.Secrets = storeItems[corev1.Secret](p.secrets, nil)
	o.Liqo0xSecrets = storeItems[corev1.Secret](p.liqo0xSecrets, nil)
	o.Tenants = storeItems[authv1beta1.Tenant](p.tenants, nil)
	o.Identities = storeItems[authv1beta1.Identity](p.identities, nil)
	o.Slices = storeItems[authv1beta1.ResourceSlice](p.slices, nil)
	o.Renews = storeItems[authv1beta1.Renew](p.renews, nil)
	o.ForeignClusters = storeItems[unstructured.Unstructured](p.foreignClusters, nil)
	return o
}

// storeItems are an informer's objects of type T (nil informer: none).
func storeItems[T any](inf cache.SharedIndexInformer, keep func(*T) bool) []*T {
	if inf == nil {
		return nil
	}
	var out []*T
	for _, obj := range inf.GetStore().List() {
		if t, ok := obj.(*T); ok && (keep == nil || keep(t)) {
			out = append(out, t)
		}
	}
	return out
}

package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Options select and tune the reconcilers.
type Options struct {
	Provider bool // run the nonce creator (§3.3) and the Tenant reconciler (§6.2–§6.5)
	Consumer bool // run the nonce signer (§4.3) and the Identity reconciler (§8)
	// What the provider advertises in authParams (§6.4, kube.Advertise);
	// a Tenant's advertise annotations (kube.AdvertiseAPIServerAnnotation,
	// ...) win over these four for its consumer.
	//
	// APIServerOverride is the provider API server address, https://
	// prefixed when it does not start with it, like Liqo; "" = a
	// control-plane Node's with AdvertiseNodeAddress, else the rest
	// config's Host.
	APIServerOverride string
	// CAOverride is the provider CA PEM; nil = none with TrustedCA, else the
	// rest config's CAData (or the content of CAFile: in a Pod, the service
	// account's ca.crt).
	CAOverride []byte
	// TrustedCA advertises no CA: the provider API server's certificate is
	// publicly trusted (Liqo's --trusted-ca; CAOverride still wins).
	TrustedCA bool
	// AdvertiseNodeAddress, without APIServerOverride, advertises the first
	// control-plane Node's address on port 6443 as Liqo does (§6.4): the
	// in-cluster controller, whose own address is a Service VIP. The
	// address is cached for a minute; no such Node is an error naming
	// --api-server-address-override.
	AdvertiseNodeAddress bool
	// AdvertiseKubeconfigWithoutNode, with AdvertiseNodeAddress, advertises
	// the rest config's Host where there is no control-plane Node (or the
	// config may not list Nodes): the in-process controllers, whose Host
	// is the admin's.
	AdvertiseKubeconfigWithoutNode bool
	Workers                        int // per queue; 0 = 2
	// CertificateTimeout bounds the wait for a CSR to be signed; 0 = 30s.
	CertificateTimeout time.Duration
	// HandshakeOnly runs only what the handshake needs (§3–§8: the nonce
	// creator and signer, the Tenant and Identity reconcilers), not
	// resource acquisition, renewal or replication: in-process controllers
	// that live for one authenticate, where these would only cost requests.
	HandshakeOnly bool
	// KeepCSRs leaves CertificateSigningRequests in place once their
	// certificate is stored (Liqo lets them pile up; by default we delete
	// them).
	KeepCSRs bool
	// DefaultNodeResources is what a slice of the default class is granted
	// of each resource it does not ask for (Liqo's
	// --default-node-resources); nil = Liqo's chart default
	// (DefaultNodeResources), empty = nothing.
	DefaultNodeResources corev1.ResourceList
	// SliceOffer is what a granted slice of the default class is told the
	// provider offers besides resources (storage, ingress and load
	// balancer classes, node labels); zero: nothing, as Liqo's defaults.
	SliceOffer SliceOffer
	// DefaultSliceClassDisabled grants nothing to slices of the default
	// class: their Resources are Denied (DefaultResourceSliceClassDisabled)
	// and only plugins' classes get resources, as Liqo's next release does
	// with --default-resource-slice-class-enabled=false.
	DefaultSliceClassDisabled bool
	// YieldToController: an in-process run (the wizard's, a command's),
	// which stops its workers, and Run returns ErrHandedOver, once the
	// in-cluster controller holds its Lease (handover.go).
	YieldToController bool
	// WaitForInProcess: the in-cluster controller, which starts its
	// workers only once no in-process run of its roles holds its Lease.
	WaitForInProcess bool
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.CertificateTimeout <= 0 {
		o.CertificateTimeout = 30 * time.Second
	}
	if o.DefaultNodeResources == nil {
		o.DefaultNodeResources = DefaultNodeResources()
	}
	return o
}

// eventFlushTimeout bounds how long stopping waits for queued Events.
const eventFlushTimeout = 5 * time.Second

// Manager runs the reconcilers of one cluster. Run may be called again
// after it returned (RunWithLease does so when leadership comes back), but
// never twice at once.
type Manager struct {
	c   *kube.Cluster
	o   Options
	dyn dynamic.Interface

	// slicesServed tells whether the ResourceSlice API answered at start.
	slicesServed bool

	running    atomic.Bool
	hasSynced  atomic.Bool
	synced     chan struct{}
	syncedOnce sync.Once

	// afterSync, when set (tests), is told about every finished sync.
	afterSync func(loop, key string, err error)

	// warm is a Run's preparation started by Warm, delivered once ready.
	warmMu sync.Mutex
	warm   *preparedRun

	// lastListErr is the last list or watch error of an informer while the
	// caches were syncing (a network error, retried): a timeout names it.
	lastListErr atomic.Pointer[error]
}

// LastListError returns the last list or watch error of an informer seen
// while the caches were syncing, or nil.
func (m *Manager) LastListError() error {
	if p := m.lastListErr.Load(); p != nil {
		return *p
	}
	return nil
}

// New checks the options and prepares a Manager; it does not contact the
// cluster.
func New(c *kube.Cluster, o Options) (*Manager, error) {
	if c == nil {
		return nil, errors.New("controller: no cluster")
	}
	if !o.Provider && !o.Consumer {
		return nil, errors.New("controller: nothing to run: enable the provider side, the consumer side or both")
	}
	// Built-in kinds travel as protobuf, in requests and in the informers' watches.
	c, err := c.WithProtobuf()
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, fmt.Errorf("controller: building a dynamic client for %s: %w", c.Server, err)
	}
	return &Manager{c: c, o: o.withDefaults(), dyn: dyn, synced: make(chan struct{})}, nil
}

// HasSynced tells whether a Run is active and all its informers synced.
func (m *Manager) HasSynced() bool { return m.hasSynced.Load() }

// Synced is closed once the informers of a Run first synced.
func (m *Manager) Synced() <-chan struct{} { return m.synced }

// Run starts the informers, waits for their caches, and runs the workers
// until ctx ends. It returns once the workers stopped and the Events they
// emitted were written. It fails early when the Liqo APIs are not served.
func (m *Manager) Run(ctx context.Context) error {
	if !m.running.CompareAndSwap(false, true) {
		return errors.New("controller: this Manager is already running")
	}
	defer m.running.Store(false)
	// A preparation begun by Warm is taken over (its informers may have
	// synced already); else the Run prepares its own, bound to ctx.
	p := m.takeWarm()
	if ctx.Err() != nil {
		if p != nil {
			p.close()
		}
		return nil
	}
	if p == nil {
		p = m.prepare(ctx)
	}
	defer p.close()
	select {
	case <-p.ready:
	case <-ctx.Done():
		return nil
	}
	if p.err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return p.err
	}
	r, logger := p.r, klog.FromContext(ctx)
	// Event-driven (no 100 ms polling): a handshake waits on this.
	syncCtx, stopSync := context.WithCancel(p.ctx)
	defer stopSync()
	defer context.AfterFunc(ctx, stopSync)()
	if !cache.WaitFor(syncCtx, "", r.synced...) {
		if ctx.Err() == nil {
			return context.Cause(p.ctx)
		}
		return nil // ctx ended first
	}
	r.syncDone.Store(true)
	m.hasSynced.Store(true)
	defer m.hasSynced.Store(false)
	m.syncedOnce.Do(func() { close(m.synced) })
	logger.V(1).Info("Controllers synced", "cluster", m.c.Server, "provider", m.o.Provider, "consumer", m.o.Consumer)

	// The caches are synced: a hand-over from or to an in-process run is
	// decided now, before any worker writes.
	if m.o.WaitForInProcess {
		if err := m.waitInProcessDone(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	if m.o.YieldToController {
		var handedOver bool
		if ctx, handedOver = m.yieldToController(ctx); handedOver {
			return ErrHandedOver
		}
	}
	var workers sync.WaitGroup
	for _, l := range r.loops {
		l.run(ctx, m.o.Workers, &workers)
	}
	<-ctx.Done()
	r.shutDownQueues()
	workers.Wait()
	if errors.Is(context.Cause(ctx), ErrHandedOver) {
		return ErrHandedOver
	}
	return nil
}

// checkAPIs fails fast, with a hint, when the authentication.liqo.io CRDs
// are missing (an informer would otherwise retry its list forever).
func (m *Manager) checkAPIs(ctx context.Context) error {
	// The lists at once (a handshake waits for them), from the API server's
	// cache (resourceVersion 0): only whether they are served matters, and a
	// consistent list would wait for that cache to catch up (up to 100 ms).
	var tenantsErr, identitiesErr, lifecycleErr error
	var g sync.WaitGroup
	if m.o.Provider {
		g.Go(func() {
			defer kube.RecoverAsError(&tenantsErr, "listing Tenants")
			_, tenantsErr = m.c.Liqo.Tenants("").List(ctx, metav1.ListOptions{Limit: 1, ResourceVersion: "0"})
		})
	}
	if m.o.Consumer {
		g.Go(func() {
			defer kube.RecoverAsError(&identitiesErr, "listing Identities")
			_, identitiesErr = m.c.Liqo.Identities("").List(ctx, metav1.ListOptions{Limit: 1, ResourceVersion: "0"})
		})
	}
	if !m.o.HandshakeOnly {
		g.Go(func() {
			defer kube.RecoverAsError(&lifecycleErr, "listing ResourceSlices and Renews")
			lifecycleErr = m.checkLifecycleAPIs(ctx)
		})
	}
	g.Wait()
	err, crd, side := tenantsErr, "tenants."+authv1beta1.GroupVersion.Group, "provider"
	if err == nil {
		err, crd, side = identitiesErr, "identities."+authv1beta1.GroupVersion.Group, "consumer"
	}
	if err == nil {
		err = lifecycleErr
	}
	switch {
	case err == nil || ctx.Err() != nil:
		return nil
	case kube.IsNotFound(err):
		return fmt.Errorf("controller: CRD %s is not installed on the %s: run `liqo-auth-tui init` or install Liqo", crd, side)
	}
	return fmt.Errorf("controller: %w", m.c.Reach(err))
}

// checkLifecycleAPIs tells whether ResourceSlices and Renews are served:
// without them the slice, renewal and replication controllers stay off
// (cordoning then has nothing to do). They come with the Tenant and
// Identity CRDs; a CRD installed a moment ago may answer 404 for a second
// or two, so a 404 is asked again for a few seconds before giving up. The
// list also has the API server build the storage of these custom
// resources now rather than in the middle of the first handshake.
func (m *Manager) checkLifecycleAPIs(ctx context.Context) error {
	var lastErr error
	backoff := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 6} // ~6 s in all
	err := wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		var renewsErr error
		var g sync.WaitGroup
		g.Go(func() {
			defer kube.RecoverAsError(&renewsErr, "listing Renews")
			_, renewsErr = m.dyn.Resource(authv1beta1.RenewGroupVersionResource).List(ctx, metav1.ListOptions{Limit: 1, ResourceVersion: "0"})
		})
		_, lastErr = m.dyn.Resource(authv1beta1.ResourceSliceGroupVersionResource).List(ctx, metav1.ListOptions{Limit: 1, ResourceVersion: "0"})
		g.Wait()
		if lastErr == nil {
			lastErr = renewsErr
		}
		if kube.IsNotFound(lastErr) {
			return false, nil
		}
		return true, lastErr
	})
	m.slicesServed = lastErr == nil
	switch {
	case m.slicesServed:
		return nil
	case kube.IsNotFound(lastErr) || wait.Interrupted(err):
		klog.FromContext(ctx).Info("ResourceSlices and Renews are not served: slices, renewal and replication stay off (run `liqo-auth-tui init` to install their CRDs)")
		return nil
	}
	return lastErr
}

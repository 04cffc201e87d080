package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// errNoKubeconfig: this consumer holds no control-plane kubeconfig for the
// provider, so nothing can be copied there yet.
var errNoKubeconfig = errors.New("no control-plane kubeconfig")

// errNotServed: the provider's API server serves neither ResourceSlices nor
// Renews (a Liqo 0.x cluster, or one without Liqo): nothing is copied there,
// and nothing is retried until its kubeconfig Secret changes.
var errNotServed = errors.New("the provider's API server serves no " + authv1beta1.GroupVersion.String() + " ResourceSlices or Renews")

// discoveryTimeout bounds the question which APIs a provider serves.
const discoveryTimeout = 30 * time.Second

// remoteKind is one replicated kind as seen from the per-provider cache:
// it builds the remote informer of its copies and is told about their
// changes.
type remoteKind interface {
	remoteInformer(c *kube.LiqoClient, namespace, selector string) cache.SharedIndexInformer
	remoteChanged(providerID string, obj any)
	resourceName() string
	localLeft(providerID string) bool
}

// remote is what the consumer holds to reach one provider: a client built
// from the control-plane kubeconfig Secret and an informer per kind on the
// copies this consumer made in its tenant namespace there.
type remote struct {
	providerID string
	namespace  string // the consumer's tenant namespace on the provider
	kubeconfig []byte
	user       string // the kubeconfig's user, for messages
	liqo       *kube.LiqoClient
	informers  map[string]cache.SharedIndexInformer // by resource
	cancel     context.CancelFunc
}

// remotes caches one remote per provider, rebuilt when the kubeconfig
// changes (renewal rewrites it) and dropped when its Secret goes.
type remotes struct {
	secrets cache.Indexer // ControlPlane kubeconfig Secrets, indexed byRemoteID
	self    *selfID
	kinds   []remoteKind
	c       *kube.Cluster
	// recheck enqueues the provider's sync (its kubeconfig Secret may wait
	// for the replicated objects to go).
	recheck func(providerID string)

	mu         sync.Mutex
	byProvider map[string]*remote
	unserved   map[string][]byte // by provider: the kubeconfig whose API server serves neither kind
	running    sync.WaitGroup
}

func newRemotes(c *kube.Cluster, secrets cache.Indexer, self *selfID) *remotes {
	return &remotes{c: c, secrets: secrets, self: self, recheck: func(string) {}, byProvider: map[string]*remote{}, unserved: map[string][]byte{}}
}

// kubeconfigSecret finds the provider's control-plane kubeconfig Secret
// the way Liqo does: by labels, exactly one in the whole cluster.
func (rs *remotes) kubeconfigSecret(providerID string) (*corev1.Secret, error) {
	objs, err := byRemoteIDMatching(rs.secrets, providerID, labels.Set{
		kube.RemoteClusterIDLabel: providerID, kube.IdentityTypeLabel: string(authv1beta1.ControlPlaneIdentityType)})
	if err != nil {
		return nil, err
	}
	switch len(objs) {
	case 0:
		return nil, fmt.Errorf("%w for provider %s (no Secret labelled %s=%s,%s=%s): authenticate with the provider first",
			errNoKubeconfig, providerID, kube.RemoteClusterIDLabel, providerID, kube.IdentityTypeLabel, authv1beta1.ControlPlaneIdentityType)
	case 1:
		return objs[0].(*corev1.Secret), nil
	}
	return nil, fmt.Errorf("found multiple secrets containing ControlPlane Kubeconfig for cluster %s: keep only one", providerID)
}

// get returns the provider's remote, built (or rebuilt) from its current
// kubeconfig Secret. The informers run under ctx until dropped.
func (rs *remotes) get(ctx context.Context, providerID string) (*remote, error) {
	s, err := rs.kubeconfigSecret(providerID)
	if err != nil {
		if errors.Is(err, errNoKubeconfig) {
			rs.drop(providerID)
		}
		return nil, err
	}
	kubeconfig := s.Data[kube.KubeconfigField]
	namespace := s.Annotations[kube.RemoteTenantNamespace]
	if r, known, err := rs.known(providerID, namespace, kubeconfig, s); known {
		return r, err
	}
	r, cfg, err := remoteFrom(s, providerID)
	if err != nil {
		return nil, err
	}
	// Asked without the lock: a provider slow to answer must not hold up
	// the replication to the others.
	served, err := servedResources(cfg)
	if err != nil {
		return nil, fmt.Errorf("asking provider %s which Liqo APIs it serves: %w", providerID, err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r, known, err := rs.knownLocked(providerID, namespace, kubeconfig, s); known {
		return r, err // made meanwhile by another worker
	}
	if !slices.ContainsFunc(rs.kinds, func(k remoteKind) bool { return served[k.resourceName()] }) {
		rs.stopLocked(providerID)
		rs.unserved[providerID] = kubeconfig
		klog.FromContext(ctx).Info("Not replicating to provider: its API server serves neither ResourceSlices nor Renews (a Liqo 0.x cluster, or one without Liqo); its kubeconfig Secret is ignored until it changes",
			"provider", providerID, "secret", klog.KObj(s), "server", cfg.Host)
		return nil, notServed(providerID, s)
	}
	me, err := rs.self.get(ctx)
	if err != nil {
		return nil, err
	}
	delete(rs.unserved, providerID)
	rs.stopLocked(providerID)
	runCtx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	for _, k := range rs.kinds {
		if !served[k.resourceName()] {
			continue // its replicator tells the local objects
		}
		inf := k.remoteInformer(r.liqo, namespace, kube.ReplicaSelector(me))
		_ = inf.SetTransform(stripManagedFields) // before it runs: cannot fail
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { k.remoteChanged(providerID, obj) },
			UpdateFunc: func(old, cur any) { enqueueIfChanged(old, cur, func(cur any) { k.remoteChanged(providerID, cur) }) },
			DeleteFunc: func(obj any) { k.remoteChanged(providerID, obj); rs.recheck(providerID) },
		}); err != nil {
			cancel()
			return nil, err
		}
		r.informers[k.resourceName()] = inf
		rs.running.Go(func() { inf.RunWithContext(runCtx) })
	}
	rs.byProvider[providerID] = r
	klog.FromContext(ctx).V(1).Info("Replicating to provider", "provider", providerID, "namespace", namespace, "server", cfg.Host)
	return r, nil
}

// remoteFrom builds the client of the provider's remote from its
// control-plane kubeconfig Secret (no informers yet).
func remoteFrom(s *corev1.Secret, providerID string) (*remote, *rest.Config, error) {
	namespace := s.Annotations[kube.RemoteTenantNamespace]
	if namespace == "" {
		return nil, nil, fmt.Errorf("secret %s/%s has no %s annotation: re-run the authentication with provider %s",
			s.Namespace, s.Name, kube.RemoteTenantNamespace, providerID)
	}
	kubeconfig := s.Data[kube.KubeconfigField]
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("kubeconfig in secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	liqo, err := kube.NewLiqoClient(cfg)
	if err != nil {
		return nil, nil, err
	}
	return &remote{providerID: providerID, namespace: namespace, kubeconfig: kubeconfig, liqo: liqo,
		user: certificateUser(cfg.CertData), informers: map[string]cache.SharedIndexInformer{}}, cfg, nil
}

// known answers from what was made for this provider and kubeconfig
// before: its remote, or that its API server serves neither kind.
func (rs *remotes) known(providerID, namespace string, kubeconfig []byte, s *corev1.Secret) (r *remote, known bool, err error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.knownLocked(providerID, namespace, kubeconfig, s)
}

func (rs *remotes) knownLocked(providerID, namespace string, kubeconfig []byte, s *corev1.Secret) (r *remote, known bool, err error) {
	if r := rs.byProvider[providerID]; r != nil && r.namespace == namespace && bytes.Equal(r.kubeconfig, kubeconfig) {
		return r, true, nil
	}
	if k, ok := rs.unserved[providerID]; ok && bytes.Equal(k, kubeconfig) {
		return nil, true, notServed(providerID, s)
	}
	return nil, false, nil
}

func notServed(providerID string, s *corev1.Secret) error {
	return fmt.Errorf("%w: provider %s (Secret %s/%s)", errNotServed, providerID, s.Namespace, s.Name)
}

// drop stops the provider's informers and forgets its client.
func (rs *remotes) drop(providerID string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.stopLocked(providerID)
	delete(rs.unserved, providerID)
}

// servedResources tells which resources of the Liqo authentication group
// the API server of cfg serves (none when it serves not the group).
func servedResources(cfg *rest.Config) (map[string]bool, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = discoveryTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	list, err := dc.ServerResourcesForGroupVersion(authv1beta1.GroupVersion.String())
	if kube.IsNotFound(err) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	return served, nil
}

func (rs *remotes) stopLocked(providerID string) {
	if r := rs.byProvider[providerID]; r != nil {
		r.cancel()
		delete(rs.byProvider, providerID)
	}
}

// stop stops every provider's informers and waits for them.
func (rs *remotes) stop() {
	rs.mu.Lock()
	for id := range rs.byProvider {
		rs.stopLocked(id)
	}
	rs.mu.Unlock()
	rs.running.Wait()
}

// sync is the level-triggered reconcile of one provider's remote (key:
// the provider ID): built as soon as its kubeconfig Secret shows up, so
// that its informers find the copies left behind while nothing local
// refers to them; dropped when the Secret goes. The Secret is held with
// Liqo's finalizer while it may be needed: once it is being deleted, it
// goes only when no local object is meant for the provider any more and
// no copy is left there (the Identity's Renew and its copy first).
func (rs *remotes) sync(ctx context.Context, providerID string) error {
	s, err := rs.kubeconfigSecret(providerID)
	if errors.Is(err, errNoKubeconfig) {
		rs.drop(providerID)
		return nil
	}
	if err != nil {
		return err
	}
	rem, err := rs.get(ctx, providerID)
	unserved := errors.Is(err, errNotServed) // nothing is copied there
	if err != nil && !unserved {
		return err
	}
	if s.DeletionTimestamp == nil {
		if unserved {
			return nil
		}
		return rs.holdSecret(ctx, s, true)
	}
	if !unserved {
		if left, err := rs.replicasLeft(ctx, rem, providerID); err != nil || left {
			return err // left: their deletion brings the provider back
		}
	}
	return rs.holdSecret(ctx, s, false)
}

// holdSecret puts the replicator's finalizer on the kubeconfig Secret, or
// takes it off.
func (rs *remotes) holdSecret(ctx context.Context, s *corev1.Secret, hold bool) error {
	patch, change := kube.FinalizerPatch(s, kube.ReplicatorSecretFinalizer, hold)
	if !change {
		return nil
	}
	_, err := rs.c.Kube.CoreV1().Secrets(s.Namespace).Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if kube.IsNotFound(err) {
		return nil
	}
	if err == nil && !hold {
		klog.FromContext(ctx).Info("Nothing replicated to the provider is left: its kubeconfig Secret goes", "provider", s.Labels[kube.RemoteClusterIDLabel], "secret", klog.KObj(s))
	}
	return err
}

// replicasLeft tells whether a local object is still meant for the
// provider, or a copy is still there. A provider that refuses the list
// (its Tenant drained or deleted) counts as having none, as for Liqo.
func (rs *remotes) replicasLeft(ctx context.Context, rem *remote, providerID string) (bool, error) {
	for _, k := range rs.kinds {
		if k.localLeft(providerID) {
			return true, nil
		}
	}
	for _, inf := range rem.informers {
		if inf.HasSynced() {
			if len(inf.GetStore().ListKeys()) > 0 {
				return true, nil
			}
			continue
		}
		return rs.copiesListed(ctx, rem)
	}
	return false, nil
}

// copiesListed asks the provider whether a copy this consumer made is
// there (the informers not synced yet).
func (rs *remotes) copiesListed(ctx context.Context, rem *remote) (bool, error) {
	me, err := rs.self.get(ctx)
	if err != nil {
		return false, err
	}
	n, err := countCopies(ctx, rem, me)
	if apierrors.IsForbidden(err) {
		return false, nil
	}
	return n > 0, err
}

// selfID is this cluster's ID, read once it is needed and then kept.
type selfID struct {
	c  *kube.Cluster
	mu sync.Mutex
	id string
}

func (s *selfID) get(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id != "" {
		return s.id, nil
	}
	id, err := s.c.ClusterID(ctx)
	if err != nil {
		return "", err
	}
	s.id = id
	return id, nil
}

// certificateUser is the user a client certificate authenticates as, for
// messages ("" when unreadable).
func certificateUser(certPEM []byte) string {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return ""
	}
	return cert.Subject.CommonName
}

package controller

import (
	"context"
	"crypto"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Two real control planes shared by the tests of this package, started by
// the first test that needs them. Tests run one after the other (Managers
// of two tests on one cluster would both reconcile) and keep apart through
// their own consumer IDs.
var testLab = labtest.Lazy("provider", "consumer")

const (
	providerID = "ctl-provider"
	consumerID = "ctl-consumer"
)

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

// labCluster returns an initialised cluster (idempotent) with a client
// rate limit that does not slow the reconcilers down.
func labCluster(t testing.TB, i int, id string) *kube.Cluster {
	t.Helper()
	cfg := rest.CopyConfig(testLab.Clusters(t)[i].Config)
	cfg.QPS, cfg.Burst = 200, 400
	c, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	_, err = c.Init(labtest.Context(t), kube.InitOptions{ClusterID: id})
	require.NoError(t, err)
	return c
}

func providerCluster(t testing.TB) *kube.Cluster { return labCluster(t, 0, providerID) }
func consumerCluster(t testing.TB) *kube.Cluster { return labCluster(t, 1, consumerID) }

// syncLog records the syncs of a Manager (through its test hook).
type syncLog struct {
	mu      sync.Mutex
	entries []syncEntry
	changed chan struct{}
}

type syncEntry struct {
	loop, key string
	err       error
}

func (s *syncLog) record(loop, key string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, syncEntry{loop, key, err})
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// waitSync waits for a successful sync of key by loop.
func (s *syncLog) waitSync(t testing.TB, loop, key string) {
	t.Helper()
	s.waitSyncAfter(t, 0, loop, key)
}

func (s *syncLog) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// failures counts the failed syncs of key by loop.
func (s *syncLog) failures(loop, key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.entries {
		if e.loop == loop && e.key == key && e.err != nil {
			n++
		}
	}
	return n
}

// waitSyncAfter waits for a successful sync of key by loop among the syncs
// after the first seen ones.
func (s *syncLog) waitSyncAfter(t testing.TB, seen int, loop, key string) {
	t.Helper()
	ctx := labtest.Context(t)
	for {
		s.mu.Lock()
		for _, e := range s.entries[seen:] {
			if e.loop == loop && e.key == key && e.err == nil {
				s.mu.Unlock()
				return
			}
		}
		seen = len(s.entries)
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("no successful sync of %s by %s", key, loop)
		}
	}
}

// startManager runs a Manager until the test ends and waits for its caches.
func startManager(t testing.TB, c *kube.Cluster, o Options) (*Manager, *syncLog) {
	t.Helper()
	m, err := New(c, o)
	require.NoError(t, err)
	log := &syncLog{}
	m.afterSync = log.record
	stop := runManager(t, m)
	t.Cleanup(stop)
	return m, log
}

// runManager runs m and returns the function that stops it and waits.
func runManager(t testing.TB, m *Manager) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	select {
	case <-m.Synced():
	case err := <-done:
		cancel()
		t.Fatalf("manager stopped before syncing: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("manager caches did not sync")
	}
	return func() {
		cancel()
		require.NoError(t, <-done)
	}
}

// waitEvent waits (watching) for an Event with reason on an object.
func waitEvent(t testing.TB, c *kube.Cluster, kind, namespace, name, reason string) *corev1.Event {
	t.Helper()
	events := c.Kube.CoreV1().Events(namespace)
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "reason": reason}.String()
	ev, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(events.List, events.Watch,
		func(o *metav1.ListOptions) { o.FieldSelector = sel }), "event "+reason+" on "+kind+" "+name,
		func(*corev1.Event) (bool, error) { return true, nil })
	require.NoError(t, err)
	return ev
}

// eventReasons lists the reasons of the Events on an object.
func eventReasons(t testing.TB, c *kube.Cluster, kind, namespace, name string) []string {
	t.Helper()
	list, err := c.Kube.CoreV1().Events(namespace).List(labtest.Context(t), metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}.String()})
	require.NoError(t, err)
	var reasons []string
	for _, e := range list.Items {
		reasons = append(reasons, e.Reason)
	}
	return reasons
}

// waitSecret waits for a Secret to satisfy cond.
func waitSecret(t testing.TB, c *kube.Cluster, namespace, name string, cond func(*corev1.Secret) bool) *corev1.Secret {
	t.Helper()
	secrets := c.Kube.CoreV1().Secrets(namespace)
	s, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(name)),
		"secret "+namespace+"/"+name, func(s *corev1.Secret) (bool, error) { return cond(s), nil })
	require.NoError(t, err)
	return s
}

// waitTenant waits for a Tenant to satisfy cond.
func waitTenant(t testing.TB, c *kube.Cluster, namespace, name string, cond func(*authv1beta1.Tenant) bool) *authv1beta1.Tenant {
	t.Helper()
	tenants := c.Liqo.Tenants(namespace)
	got, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(tenants.List, tenants.Watch, kube.ByName(name)),
		"tenant "+namespace+"/"+name, func(got *authv1beta1.Tenant) (bool, error) { return cond(got), nil })
	require.NoError(t, err)
	return got
}

func statusFilled(t *authv1beta1.Tenant) bool {
	return t.Status.TenantNamespace != "" && t.Status.AuthParams != nil && len(t.Status.AuthParams.SignedCRT) > 0
}

// waitGone waits (watching) until the object named name is deleted.
func waitGone(t testing.TB, lw cache.ListerWatcher, obj runtime.Object, name string) {
	t.Helper()
	_, err := watchtools.UntilWithSync(labtest.Context(t), lw, obj,
		func(store cache.Store) (bool, error) { return len(store.List()) == 0, nil },
		func(e watch.Event) (bool, error) { return e.Type == watch.Deleted, nil })
	require.NoError(t, err, "waiting for %s to be deleted", name)
}

// consumer is a made-up consumer cluster: an ID and a key pair, enough to
// play the consumer's part against a provider.
type consumer struct {
	id    string
	key   crypto.Signer
	nonce string // the provider's, once prepareNonce ran
}

func newConsumer(t testing.TB, id string) *consumer {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	return &consumer{id: id, key: key}
}

// prepareNonce creates the consumer's tenant namespace and nonce Secret on
// the provider and waits for the nonce to be generated.
func (cs *consumer) prepareNonce(t testing.TB, p *kube.Cluster) (tenantNS, nonce string) {
	t.Helper()
	ctx := labtest.Context(t)
	ns, _, err := p.EnsureTenantNamespace(ctx, cs.id)
	require.NoError(t, err)
	_, err = p.EnsureNonceSecret(ctx, ns.Name, cs.id)
	require.NoError(t, err)
	s := waitSecret(t, p, ns.Name, kube.NonceSecretName, func(s *corev1.Secret) bool { return len(s.Data[kube.NonceField]) > 0 })
	cs.nonce = string(s.Data[kube.NonceField])
	return ns.Name, cs.nonce
}

// tenant forges the consumer's Tenant signed over nonce.
func (cs *consumer) tenant(t testing.TB, namespace, nonce string) *authv1beta1.Tenant {
	t.Helper()
	sig, err := authcrypto.SignNonce(cs.key, []byte(nonce))
	require.NoError(t, err)
	tn, err := kube.ForgeTenant(cs.id, namespace, cs.key, sig, "")
	require.NoError(t, err)
	return tn
}

// handshake runs the provider's part for the consumer up to a filled
// Tenant status.
func (cs *consumer) handshake(t testing.TB, p *kube.Cluster) *authv1beta1.Tenant {
	t.Helper()
	ns, nonce := cs.prepareNonce(t, p)
	_, _, err := p.ApplyTenant(labtest.Context(t), cs.tenant(t, ns, nonce))
	require.NoError(t, err)
	return waitTenant(t, p, ns, cs.id, statusFilled)
}

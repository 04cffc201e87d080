//go:build cluster

package controller

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// requestLog counts the requests of a client by "verb resource".
type requestLog struct {
	mu     sync.Mutex
	counts map[string]int
}

func (l *requestLog) snapshot() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.counts))
	for k, v := range l.counts {
		out[k] = v
	}
	return out
}

// since returns what was counted after before, without watches (an
// informer's connection, not a request of a reconcile).
func (l *requestLog) since(before map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range l.snapshot() {
		if d := v - before[k]; d != 0 && !hasPrefix(k, "watch ") {
			out[k] = d
		}
	}
	return out
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// countedCluster is c with every request counted.
func countedCluster(t testing.TB, c *kube.Cluster) (*kube.Cluster, *requestLog) {
	t.Helper()
	log := &requestLog{counts: map[string]int{}}
	cfg := rest.CopyConfig(c.Config)
	cfg.WrapTransport = transport.Wrappers(cfg.WrapTransport, func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			verb, resource := requestKind(r)
			log.mu.Lock()
			log.counts[verb+" "+resource]++
			if initialList(r) {
				log.counts["initial "+verb+" "+resource]++
			}
			log.mu.Unlock()
			return rt.RoundTrip(r)
		})
	})
	counted, err := kube.NewCluster(cfg, c.Namespace)
	require.NoError(t, err)
	return counted, log
}

// initialList tells an informer's initial list: a list at resourceVersion
// 0 (the reflector's first) or a watch that sends the initial events.
func initialList(r *http.Request) bool {
	q := r.URL.Query()
	return r.Method == http.MethodGet && (q.Get("sendInitialEvents") == "true" ||
		(q.Get("watch") == "" && q.Get("resourceVersion") == "0"))
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A Tenant costs the provider's controller its writes and nothing else:
// every read comes from the informers (and from its own writes until they
// show), the finalizer does not cost a queue pass, and a pass over a
// reconciled Tenant asks the API server nothing. A Tenant this tool applies
// comes with the finalizer; one applied like liqoctl does costs its Update.
func TestTenantRequests(t *testing.T) {
	p := providerCluster(t)
	counted, reqs := countedCluster(t, p)
	_, syncs := startManager(t, counted, Options{Provider: true})

	for _, tc := range []struct {
		name       string
		apply      func(ctx context.Context, tn *authv1beta1.Tenant) error
		finalizers int
	}{
		{"applied by liqo-auth-tui", func(ctx context.Context, tn *authv1beta1.Tenant) error {
			_, _, err := p.ApplyTenant(ctx, tn)
			return err
		}, 0},
		{"applied like liqoctl", func(ctx context.Context, tn *authv1beta1.Tenant) error {
			_, err := p.Liqo.Tenants(tn.Namespace).Create(ctx, tn, metav1.CreateOptions{})
			return err
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := labtest.Context(t)
			// The nonce is there already (the nonce creator is not measured).
			cs := newConsumer(t, "few-requests-"+strconv.Itoa(tc.finalizers))
			ns, _, err := p.EnsureTenantNamespace(ctx, cs.id)
			require.NoError(t, err)
			nonce, err := authcrypto.NewNonce()
			require.NoError(t, err)
			_, err = p.Kube.CoreV1().Secrets(ns.Name).Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: kube.NonceSecretName, Labels: map[string]string{kube.RemoteClusterIDLabel: cs.id, kube.NonceLabel: "true"}},
				Data:       map[string][]byte{kube.NonceField: []byte(nonce)},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
			cs.nonce = nonce
			syncs.waitSync(t, "nonce-creator", ns.Name+"/"+kube.NonceSecretName)

			before := reqs.snapshot()
			require.NoError(t, tc.apply(ctx, cs.tenant(t, ns.Name, nonce)))
			waitTenant(t, p, ns.Name, cs.id, statusFilled)
			waitEvent(t, p, authv1beta1.TenantKind, ns.Name, cs.id, ReasonReconciled)
			want := map[string]int{
				"update tenants":                             tc.finalizers,
				"create certificatesigningrequests":          1,
				"update certificatesigningrequests/approval": 1,
				"delete certificatesigningrequests":          1, // alone: at once
				"create secrets":                             1, // the certificate cache
				"create rolebindings":                        1,
				"create clusterrolebindings":                 1,
				"update tenants/status":                      1,
				"create events":                              1, // Reconciled
			}
			if tc.finalizers == 0 {
				delete(want, "update tenants")
			}
			assert.Equal(t, want, reqs.since(before))
			got, err := p.Liqo.Tenants(ns.Name).Get(ctx, cs.id, metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, []string{kube.TenantFinalizer}, got.Finalizers)

			// Touching the Tenant brings it back: nothing to do, nothing asked.
			seen := syncs.count()
			before = reqs.snapshot()
			got.Annotations = map[string]string{"example.com/touched": "yes"}
			_, err = p.Liqo.Tenants(ns.Name).Update(ctx, got, metav1.UpdateOptions{})
			require.NoError(t, err)
			syncs.waitSyncAfter(t, seen, "tenant", ns.Name+"/"+cs.id)
			assert.Empty(t, reqs.since(before))
		})
	}
}

// The CSRs of a burst go in batches: the issuances under way share the
// open batch, which is deleted with one request once the last of them
// finished; later issuances start a new one.
func TestCSRBatches(t *testing.T) {
	p := providerCluster(t)
	ctx := labtest.Context(t)
	counted, reqs := countedCluster(t, p)
	factory := informers.NewSharedInformerFactoryWithOptions(p.Kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = kube.RemoteTenantCSRLabel }))
	csrs := factory.Certificates().V1().CertificateSigningRequests()
	tracker := newCSRTracker(counted, csrs.Lister(), nil, false)
	_, err := csrs.Informer().AddEventHandler(tracker.handler())
	require.NoError(t, err)
	informerCtx, stopInformers := context.WithCancel(ctx)
	defer func() { stopInformers(); factory.Shutdown() }()
	factory.Start(informerCtx.Done())
	for _, ok := range factory.WaitForCacheSync(informerCtx.Done()) {
		require.True(t, ok)
	}

	issue := func(b *csrBatch, l map[string]string, cn string) {
		t.Helper()
		key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
		require.NoError(t, err)
		req, err := authcrypto.NewCSR(key, cn)
		require.NoError(t, err)
		cert, err := counted.IssueCertificate(ctx, kube.CSRRequest{PEM: req, GenerateName: "liqo-identity-", Labels: l,
			Reason: "Test", Message: "batch", KeepObject: true, Wait: tracker.wait, Created: func(n string) { tracker.created(b, n) }})
		require.NoError(t, err)
		require.NotEmpty(t, cert)
	}
	left := func(b *csrBatch) int {
		t.Helper()
		list, err := p.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{
			LabelSelector: labels.Set{csrBatchLabel: b.id}.String()})
		require.NoError(t, err)
		return len(list.Items)
	}

	b1, l1 := tracker.begin()
	b2, l2 := tracker.begin()
	require.Same(t, b1, b2, "issuances under way share the open batch")
	before := reqs.snapshot()
	issue(b1, l1, "batch-1")
	issue(b2, l2, "batch-2")
	tracker.finish(ctx, b1)
	assert.Equal(t, 2, left(b1), "one issuance of the batch is still under way")
	tracker.finish(ctx, b2)
	tracker.flush()
	assert.Zero(t, left(b1), "the batch is deleted")
	assert.Equal(t, map[string]int{
		"create certificatesigningrequests":           2,
		"update certificatesigningrequests/approval":  2,
		"deletecollection certificatesigningrequests": 1,
	}, reqs.since(before))

	b3, _ := tracker.begin()
	assert.NotSame(t, b1, b3, "a deleted batch takes no more CSRs")
	tracker.finish(ctx, b3)

	// A burst: batches fill up to maxCSRBatch; a full batch goes once all
	// its issuances ended, the rest once no issuance is in flight: one
	// deletecollection each.
	before = reqs.snapshot()
	burst := make([]*csrBatch, maxCSRBatch+2)
	for i := range burst {
		burst[i], _ = tracker.begin()
		tracker.created(burst[i], fmt.Sprintf("burst-%d", i)) // not on the server: nothing to delete
	}
	require.NotSame(t, burst[0], burst[maxCSRBatch], "a full batch is closed")
	for _, b := range burst[1:] {
		tracker.finish(ctx, b)
	}
	tracker.flush()
	assert.Empty(t, reqs.since(before), "one issuance is still in flight")
	tracker.finish(ctx, burst[0])
	tracker.flush()
	assert.Equal(t, map[string]int{"deletecollection certificatesigningrequests": 2}, reqs.since(before))

	// A long burst does not wait for an idle moment: a full batch whose
	// issuances ended goes while the next one is still under way, and the
	// CSR cleaner leaves the CSRs of a pending batch to the tracker.
	before = reqs.snapshot()
	burst = make([]*csrBatch, maxCSRBatch+1)
	for i := range burst {
		burst[i], _ = tracker.begin()
		tracker.created(burst[i], fmt.Sprintf("long-%d", i))
	}
	open := &certv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{csrBatchLabel: burst[maxCSRBatch].id}}}
	full := &certv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{csrBatchLabel: burst[0].id}}}
	assert.True(t, tracker.pendingDeletion(full))
	for _, b := range burst[:maxCSRBatch] {
		tracker.finish(ctx, b)
	}
	tracker.flush()
	assert.Equal(t, map[string]int{"deletecollection certificatesigningrequests": 1}, reqs.since(before), "the full batch, at once")
	assert.False(t, tracker.pendingDeletion(full), "deleted: no longer pending")
	assert.True(t, tracker.pendingDeletion(open), "the open batch waits for its issuance")
	tracker.finish(ctx, burst[maxCSRBatch])
	tracker.flush()
	assert.Equal(t, map[string]int{"deletecollection certificatesigningrequests": 1, "delete certificatesigningrequests": 1},
		reqs.since(before), "a batch of one goes with one delete")
	assert.False(t, tracker.pendingDeletion(open))
}

// Package burst makes many consumers' Tenants at once on a lab provider and
// records what its controller does with them (the CSRs it creates, the
// statuses it fills): the evidence of the restart, failover and scale tests.
package burst

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// SyntheticConsumer prepares on the provider what the handshake of consumer
// id left there before its Tenant is applied (the tenant namespace and the
// provider's nonce in it, filled beforehand) and returns the consumer's
// Tenant as `apply tenant` creates it: a real Ed25519 key, a signature over
// the nonce and a CSR. The Tenant itself is not created.
func SyntheticConsumer(ctx context.Context, admin *kube.Cluster, id string) (*authv1beta1.Tenant, error) {
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	if err != nil {
		return nil, err
	}
	nonce, err := authcrypto.NewNonce()
	if err != nil {
		return nil, err
	}
	sig, err := authcrypto.SignNonce(key, []byte(nonce))
	if err != nil {
		return nil, err
	}
	ns := kube.TenantNamespaceName(id)
	forged, err := kube.ForgeTenant(id, ns, key, sig, "")
	if err != nil {
		return nil, err
	}
	if _, err := admin.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns, Labels: kube.TenantNamespaceLabels(id)}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	if _, err := admin.Kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: kube.NonceSecretName, Namespace: ns,
			Labels: map[string]string{kube.RemoteClusterIDLabel: id, kube.NonceLabel: "true"}},
		Data: map[string][]byte{kube.NonceField: []byte(nonce)},
	}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	return kube.TenantToCreate(forged), nil
}

// Parallel runs f(0..n-1) on conc goroutines and fails on the first error.
func Parallel(b testing.TB, conc, n int, f func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	for range conc {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					errs <- err
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
}

// CSRRecord is every Tenant CSR created from now on, by consumer.
type CSRRecord struct {
	mu      sync.Mutex
	byCN    map[string][]string // consumer ID -> CSR names, in creation order
	certs   map[string][]byte   // CSR name -> its certificate once signed
	live    map[string]bool     // created and not deleted yet
	changed chan struct{}       // closed and replaced on every event
}

// RecordTenantCSRs watches the Tenant CSRs (labelled
// liqo.io/remote-tenant-csr) whose CN starts with prefix.
func RecordTenantCSRs(t testing.TB, ctx context.Context, c *kube.Cluster, prefix string) *CSRRecord {
	client := c.Kube.CertificatesV1().CertificateSigningRequests()
	sel := kube.RemoteTenantCSRLabel + "=true"
	list, err := client.List(ctx, metav1.ListOptions{LabelSelector: sel})
	require.NoError(t, err)
	r := &CSRRecord{byCN: map[string][]string{}, certs: map[string][]byte{}, live: map[string]bool{}, changed: make(chan struct{})}
	for _, csr := range list.Items {
		require.False(t, strings.HasPrefix(requestCN(t, &csr), prefix), "CSR %s before the test", csr.Name)
	}
	lw := cache.ToListerWatcherWithContext(kube.ListWatch(client.List, client.Watch, kube.BySelector(sel)))
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, lw)
	require.NoError(t, err)
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			csr, ok := ev.Object.(*certv1.CertificateSigningRequest)
			if !ok {
				continue // an error: the test's wait then times out
			}
			if cn := requestCN(t, csr); strings.HasPrefix(cn, prefix) {
				r.seen(ev.Type, cn, csr)
			}
		}
	}()
	return r
}

func (r *CSRRecord) seen(typ watch.EventType, cn string, csr *certv1.CertificateSigningRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch typ {
	case watch.Added:
		r.byCN[cn] = append(r.byCN[cn], csr.Name)
		r.live[csr.Name] = true
	case watch.Deleted:
		delete(r.live, csr.Name)
	}
	if len(csr.Status.Certificate) > 0 {
		r.certs[csr.Name] = csr.Status.Certificate
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *CSRRecord) Of(cn string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byCN[cn]
}

// WaitCertificate returns the certificate of the CSR called name once the
// watch showed it signed (nil if ctx ends first).
func (r *CSRRecord) WaitCertificate(ctx context.Context, name string) []byte {
	for {
		r.mu.Lock()
		cert, changed := r.certs[name], r.changed
		r.mu.Unlock()
		if cert != nil {
			return cert
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

// HasLive tells whether a CSR of cn exists (created, not deleted).
func (r *CSRRecord) HasLive(cn string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range r.byCN[cn] {
		if r.live[name] {
			return true
		}
	}
	return false
}

func (r *CSRRecord) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// AllDeleted is closed once every CSR seen so far is deleted.
func (r *CSRRecord) AllDeleted(ctx context.Context) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		for {
			r.mu.Lock()
			left, changed := len(r.live), r.changed
			r.mu.Unlock()
			if left == 0 {
				close(out)
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

func requestCN(t testing.TB, csr *certv1.CertificateSigningRequest) string {
	block, _ := pem.Decode(csr.Spec.Request)
	if block == nil {
		return ""
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		t.Logf("CSR %s: %v", csr.Name, err)
		return ""
	}
	return req.Subject.CommonName
}

// FilledTenants counts the Tenants named with a prefix whose
// status.authParams holds a certificate.
type FilledTenants struct {
	mu      sync.Mutex
	filled  map[string]bool
	changed chan struct{}
}

func WatchFilledTenants(t testing.TB, ctx context.Context, c *kube.Cluster, prefix string) *FilledTenants {
	f := &FilledTenants{filled: map[string]bool{}, changed: make(chan struct{})}
	client := c.Liqo.Tenants("")
	inf := cache.NewSharedIndexInformer(kube.ListWatch(client.List, client.Watch, func(*metav1.ListOptions) {}), &authv1beta1.Tenant{}, 0, nil)
	check := func(obj any) {
		tn, ok := obj.(*authv1beta1.Tenant)
		if !ok || !strings.HasPrefix(tn.Name, prefix) || tn.Status.AuthParams == nil || len(tn.Status.AuthParams.SignedCRT) == 0 {
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.filled[tn.Name] {
			f.filled[tn.Name] = true
			close(f.changed)
			f.changed = make(chan struct{})
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: check, UpdateFunc: func(_, cur any) { check(cur) }})
	require.NoError(t, err)
	go inf.RunWithContext(ctx)
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))
	return f
}

func (f *FilledTenants) Has(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.filled[name]
}

func (f *FilledTenants) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.filled)
}

// AtLeast is closed once k Tenants are filled.
func (f *FilledTenants) AtLeast(ctx context.Context, k int) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		for {
			f.mu.Lock()
			got, changed := len(f.filled), f.changed
			f.mu.Unlock()
			if got >= k {
				close(out)
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

//go:build cluster

package main_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The controller binary, SIGKILLed while a burst of Tenants is in flight
// and started again, makes every Tenant converge with exactly one
// certificate each, and leaves no CertificateSigningRequest behind.
//
// The evidence of "one certificate" is the CSRs themselves: the kube CA
// signs only what a CSR asks, so every certificate issued has one, and a
// watch that starts before the controller and resumes from its last
// resourceVersion (RetryWatcher) sees every CSR created, even one created
// and deleted between two looks. Each is attributed to its consumer by the
// CN of its request.
func TestControllerKilledMidBurstConverges(t *testing.T) {
	const n, killAt = 100, 30
	provider := prepare(t, 0, "kill-provider")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	kubeconfig, _ := provider.serviceAccountKubeconfig(t)

	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("kill-%03d", i)
	}
	tenants := make([]*authv1beta1.Tenant, n)
	parallel(t, 8, n, func(i int) (err error) {
		tenants[i], err = syntheticConsumer(ctx, provider.admin, ids[i])
		return err
	})
	csrs := recordTenantCSRs(t, ctx, provider.admin, "kill-")
	filled := watchFilledTenants(t, ctx, provider.admin, "kill-")

	ctl := provider.start(t, kubeconfig, "kill-0")
	provider.leaseHolder(t, ctx, "")
	parallel(t, 16, n, func(i int) error {
		_, err := provider.admin.Liqo.Tenants(tenants[i].Namespace).Create(ctx, tenants[i], metav1.CreateOptions{})
		return err
	})

	select {
	case <-filled.atLeast(ctx, killAt):
	case <-ctx.Done():
		t.Fatalf("only %d Tenants got their status before the kill", filled.count())
	}
	require.NoError(t, ctl.cmd.Process.Kill())
	exit := <-ctl.exited
	ctl.exited <- exit // for the cleanup
	done, inFlight := filled.count(), 0
	for _, id := range ids {
		if !filled.has(id) && csrs.hasLive(id) {
			inFlight++ // a CSR made, the certificate not handed out yet
		}
	}
	t.Logf("killed with %d of %d Tenants filled, %d CSRs of the unfilled ones in flight, %d CSRs not deleted yet", done, n, inFlight, csrs.pending())
	require.Less(t, done, n, "the kill must catch Tenants in flight")

	// Same identity: it takes over its own Lease at once.
	provider.start(t, kubeconfig, "kill-0")
	select {
	case <-filled.atLeast(ctx, n):
	case <-ctx.Done():
		t.Fatalf("only %d of %d Tenants got their status after the restart", filled.count(), n)
	}

	// One CSR per consumer, and its certificate is the one handed out.
	for i, id := range ids {
		names := csrs.of(id)
		if !assert.Len(t, names, 1, "CSRs created for %s", id) {
			continue
		}
		got, err := provider.admin.Liqo.Tenants(tenants[i].Namespace).Get(ctx, tenants[i].Name, metav1.GetOptions{})
		require.NoError(t, err)
		// The CSRs' watch may show the signing a moment after the Tenants'
		// shows the status.
		assert.Equal(t, string(csrs.waitCertificate(ctx, names[0])), string(got.Status.AuthParams.SignedCRT), "certificate of %s", id)
	}
	// None left behind once settled.
	select {
	case <-csrs.allDeleted(ctx):
	case <-ctx.Done():
		t.Fatalf("%d CSRs of the burst are still there", csrs.pending())
	}
}

// csrRecord is every Tenant CSR created from now on, by consumer.
type csrRecord struct {
	mu      sync.Mutex
	byCN    map[string][]string // consumer ID -> CSR names, in creation order
	certs   map[string][]byte   // CSR name -> its certificate once signed
	live    map[string]bool     // created and not deleted yet
	changed chan struct{}       // closed and replaced on every event
}

// recordTenantCSRs watches the Tenant CSRs (labelled
// liqo.io/remote-tenant-csr) whose CN starts with prefix.
func recordTenantCSRs(t *testing.T, ctx context.Context, c *kube.Cluster, prefix string) *csrRecord {
	client := c.Kube.CertificatesV1().CertificateSigningRequests()
	sel := kube.RemoteTenantCSRLabel + "=true"
	list, err := client.List(ctx, metav1.ListOptions{LabelSelector: sel})
	require.NoError(t, err)
	r := &csrRecord{byCN: map[string][]string{}, certs: map[string][]byte{}, live: map[string]bool{}, changed: make(chan struct{})}
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

func (r *csrRecord) seen(typ watch.EventType, cn string, csr *certv1.CertificateSigningRequest) {
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

func (r *csrRecord) of(cn string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byCN[cn]
}

// waitCertificate returns the certificate of the CSR called name once the
// watch showed it signed (nil if ctx ends first).
func (r *csrRecord) waitCertificate(ctx context.Context, name string) []byte {
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

// hasLive tells whether a CSR of cn exists (created, not deleted).
func (r *csrRecord) hasLive(cn string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range r.byCN[cn] {
		if r.live[name] {
			return true
		}
	}
	return false
}

func (r *csrRecord) pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// allDeleted is closed once every CSR seen so far is deleted.
func (r *csrRecord) allDeleted(ctx context.Context) <-chan struct{} {
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

func requestCN(t *testing.T, csr *certv1.CertificateSigningRequest) string {
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

// filledTenants counts the Tenants named with a prefix whose
// status.authParams holds a certificate.
type filledTenants struct {
	mu      sync.Mutex
	filled  map[string]bool
	changed chan struct{}
}

func watchFilledTenants(t *testing.T, ctx context.Context, c *kube.Cluster, prefix string) *filledTenants {
	f := &filledTenants{filled: map[string]bool{}, changed: make(chan struct{})}
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

func (f *filledTenants) has(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.filled[name]
}

func (f *filledTenants) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.filled)
}

// atLeast is closed once k Tenants are filled.
func (f *filledTenants) atLeast(ctx context.Context, k int) <-chan struct{} {
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

//go:build cluster

package controller

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Finished Tenant CSRs left behind are deleted once nobody can still be
// waiting for them; pending ones are left alone.
func TestCSRCleaner(t *testing.T) {
	p := providerCluster(t)
	ctx := labtest.Context(t)
	csrs := p.Kube.CertificatesV1().CertificateSigningRequests()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	request, err := authcrypto.NewCSR(key, "csr-leftover")
	require.NoError(t, err)
	labels := map[string]string{kube.RemoteTenantCSRLabel: "true"}
	_, err = p.IssueCertificate(ctx, kube.CSRRequest{PEM: request, GenerateName: "liqo-identity-", Labels: labels,
		Reason: "Test", Message: "kept on purpose", KeepObject: true})
	require.NoError(t, err)
	pending, err := csrs.Create(ctx, &certv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "liqo-identity-", Labels: labels},
		Spec: certv1.CertificateSigningRequestSpec{Request: request, SignerName: kube.KubeAPIServerClientSignerName,
			Usages: []certv1.KeyUsage{certv1.UsageClientAuth}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	list, err := csrs.List(ctx, metav1.ListOptions{LabelSelector: kube.RemoteTenantCSRLabel})
	require.NoError(t, err)
	var issued string
	for _, c := range list.Items {
		if len(c.Status.Certificate) > 0 && string(c.Spec.Request) == string(request) {
			issued = c.Name
		}
	}
	require.NotEmpty(t, issued)

	informerCtx, stop := context.WithCancel(ctx)
	factory := informers.NewSharedInformerFactoryWithOptions(p.Kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = kube.RemoteTenantCSRLabel }))
	lister := factory.Certificates().V1().CertificateSigningRequests().Lister()
	factory.Start(informerCtx.Done())
	defer func() { stop(); factory.Shutdown() }()
	for _, synced := range factory.WaitForCacheSync(informerCtx.Done()) {
		require.True(t, synced)
	}

	r := &csrCleaner{c: p, csrs: lister, grace: time.Minute}
	after, err := r.sync(ctx, issued)
	require.NoError(t, err)
	assert.InDelta(t, float64(time.Minute), float64(after), float64(10*time.Second), "looked at again when the grace period ends")
	_, err = csrs.Get(ctx, issued, metav1.GetOptions{})
	require.NoError(t, err, "kept during the grace period")

	r.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	after, err = r.sync(ctx, issued)
	require.NoError(t, err)
	assert.Zero(t, after)
	_, err = csrs.Get(ctx, issued, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "deleted after the grace period: %v", err)

	after, err = r.sync(ctx, pending.Name)
	require.NoError(t, err)
	assert.Zero(t, after)
	_, err = csrs.Get(ctx, pending.Name, metav1.GetOptions{})
	require.NoError(t, err, "a pending CSR is left alone")
	require.NoError(t, csrs.Delete(ctx, pending.Name, metav1.DeleteOptions{}))
}

// loseCSRCreateAnswer passes requests to the API server and loses the
// answer to the first CSR create, as a restarting API server does when it
// made the object and closed the connection before answering.
type loseCSRCreateAnswer struct {
	next http.RoundTripper
	lost atomic.Bool
}

func (l *loseCSRCreateAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/certificatesigningrequests") && l.lost.CompareAndSwap(false, true) {
		_ = resp.Body.Close()
		return nil, errors.New("read: connection reset by peer")
	}
	return resp, err
}

// Regression (the soak's CSRs left behind): an issuance whose create
// reached the API server but whose answer was lost leaves a CSR nobody
// knows the name of, never approved. The cleaner deletes it, as one of
// the tracker's, once the grace period is over.
func TestCSRCleanerLostCreateAnswer(t *testing.T) {
	p := providerCluster(t)
	ctx := labtest.Context(t)
	cfg := rest.CopyConfig(p.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &loseCSRCreateAnswer{next: rt} })
	lossy, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	request, err := authcrypto.NewCSR(key, "csr-lost-answer")
	require.NoError(t, err)

	tracker := newCSRTracker(lossy, nil, nil, false)
	batch, labels := tracker.begin()
	_, err = lossy.IssueCertificate(ctx, kube.CSRRequest{PEM: request, GenerateName: "liqo-identity-", Labels: labels,
		Reason: "Test", Message: "answer lost", KeepObject: true, Wait: tracker.wait,
		Created: func(name string) { tracker.created(batch, name) }})
	require.ErrorContains(t, err, "connection reset by peer")
	tracker.finish(ctx, batch)

	csrs := p.Kube.CertificatesV1().CertificateSigningRequests()
	list, err := csrs.List(ctx, metav1.ListOptions{LabelSelector: csrBatchLabel + "=" + batch.id})
	require.NoError(t, err)
	require.Len(t, list.Items, 1, "the create reached the API server")
	orphan := &list.Items[0]
	assert.False(t, kube.CSRApproved(orphan), "nobody approved it")

	cached := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	require.NoError(t, cached.Add(orphan))
	r := &csrCleaner{c: p, csrs: certlisters.NewCertificateSigningRequestLister(cached), grace: time.Minute, tracker: tracker}
	after, err := r.sync(ctx, orphan.Name)
	require.NoError(t, err)
	assert.Greater(t, after, 50*time.Second, "kept during the grace period")
	_, err = csrs.Get(ctx, orphan.Name, metav1.GetOptions{})
	require.NoError(t, err)

	r.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	after, err = r.sync(ctx, orphan.Name)
	require.NoError(t, err)
	assert.Zero(t, after)
	_, err = csrs.Get(ctx, orphan.Name, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "the abandoned CSR is deleted: %v", err)
}

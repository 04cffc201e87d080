//go:build cluster

package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
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

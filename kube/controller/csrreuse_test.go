package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// A CSR an interrupted run left for a Tenant is reused only when it can
// still give the Tenant its certificate: same request, signer and usages,
// not refused, unsigned or signed with a certificate not due for renewal.
func TestCSRReusable(t *testing.T) {
	cs := newConsumer(t, "reuse")
	request, err := authcrypto.NewCSR(cs.key, "reuse")
	require.NoError(t, err)
	other, err := authcrypto.NewCSR(newConsumer(t, "other").key, "other")
	require.NoError(t, err)
	now := time.Now()
	fresh := labtest.SelfSigned(t, cs.key, "reuse", now.Add(-time.Hour), now.Add(24*time.Hour))
	due := labtest.SelfSigned(t, cs.key, "reuse", now.Add(-23*time.Hour), now.Add(time.Hour))
	csr := func(name string, change func(*certv1.CertificateSigningRequest)) *certv1.CertificateSigningRequest {
		c := &certv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: certv1.CertificateSigningRequestSpec{Request: request, SignerName: kube.KubeAPIServerClientSignerName, Usages: tenantCSRUsages}}
		if change != nil {
			change(c)
		}
		return c
	}
	condition := func(typ certv1.RequestConditionType) func(*certv1.CertificateSigningRequest) {
		return func(c *certv1.CertificateSigningRequest) {
			c.Status.Conditions = append(c.Status.Conditions, certv1.CertificateSigningRequestCondition{Type: typ, Status: corev1.ConditionTrue})
		}
	}
	for _, tc := range []struct {
		name   string
		csr    *certv1.CertificateSigningRequest
		reused bool
	}{
		{"pending", csr("pending", nil), true},
		{"approved", csr("approved", condition(certv1.CertificateApproved)), true},
		{"signed", csr("signed", func(c *certv1.CertificateSigningRequest) { c.Status.Certificate = fresh }), true},
		{"signed, due for renewal", csr("due", func(c *certv1.CertificateSigningRequest) { c.Status.Certificate = due }), false},
		{"denied", csr("denied", condition(certv1.CertificateDenied)), false},
		{"failed", csr("failed", condition(certv1.CertificateFailed)), false},
		{"another request", csr("other", func(c *certv1.CertificateSigningRequest) { c.Spec.Request = other }), false},
		{"another signer", csr("signer", func(c *certv1.CertificateSigningRequest) { c.Spec.SignerName = "example.com/other" }), false},
		{"other usages", csr("usages", func(c *certv1.CertificateSigningRequest) {
			c.Spec.Usages = []certv1.KeyUsage{certv1.UsageClientAuth}
		}), false},
		{"shorter lifetime", csr("expiry", func(c *certv1.CertificateSigningRequest) { c.Spec.ExpirationSeconds = ptr.To[int32](600) }), false},
		{"being deleted", csr("deleting", func(c *certv1.CertificateSigningRequest) { c.DeletionTimestamp = &metav1.Time{Time: now} }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, byRequestIndexers)
			require.NoError(t, idx.Add(tc.csr))
			got := (&csrTracker{index: idx}).reusable(request, now)
			if tc.reused {
				require.NotNil(t, got)
				assert.Equal(t, tc.csr.Name, got.Name)
			} else {
				assert.Nil(t, got)
			}
		})
	}
}

// A finished CSR whose certificate is already in its consumer's cache
// Secret (left by a run killed before it deleted its CSRs) is deleted at
// once; one whose certificate is not stored waits for the grace period.
func TestCSRCleanerDeletesStoredAtOnce(t *testing.T) {
	now := time.Now()
	cs := newConsumer(t, "stored")
	cert := labtest.SelfSigned(t, cs.key, "stored", now.Add(-time.Hour), now.Add(24*time.Hour))
	for _, tc := range []struct {
		name       string
		inSecret   []byte
		wantDelete bool
	}{
		{"stored", cert, true},
		{"another certificate stored", labtest.SelfSigned(t, cs.key, "stored", now.Add(-2*time.Hour), now.Add(23*time.Hour)), false},
		{"nothing stored", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			csr := &certv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "liqo-identity-s", UID: "uid-s",
				CreationTimestamp: metav1.NewTime(now.Add(-time.Second)), Labels: map[string]string{kube.RemoteTenantCSRLabel: "true"}},
				Status: certv1.CertificateSigningRequestStatus{Certificate: cert}}
			csrs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			require.NoError(t, csrs.Add(csr))
			require.NoError(t, f.kube.Tracker().Add(csr))
			certs := cache.NewStore(cache.MetaNamespaceKeyFunc)
			if tc.inSecret != nil {
				cached, err := certSecretSkeleton(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: kube.RemoteCertSecretName, Namespace: kube.TenantNamespaceName("stored"),
					Labels: map[string]string{kube.RemoteClusterIDLabel: "stored"}}, Data: map[string][]byte{kube.RemoteCertCertificateField: tc.inSecret}})
				require.NoError(t, err)
				require.NoError(t, certs.Add(cached))
			}
			r := &csrCleaner{c: f.cluster, csrs: certlisters.NewCertificateSigningRequestLister(csrs), certs: certs, grace: time.Minute, now: func() time.Time { return now }}
			after, err := r.sync(t.Context(), csr.Name)
			require.NoError(t, err)
			_, getErr := f.kube.CertificatesV1().CertificateSigningRequests().Get(t.Context(), csr.Name, metav1.GetOptions{})
			if tc.wantDelete {
				assert.Zero(t, after)
				assert.True(t, kube.IsNotFound(getErr), "%v", getErr)
			} else {
				assert.Greater(t, after, 50*time.Second, "looked at again once the grace period ends")
				assert.NoError(t, getErr)
			}
		})
	}
}

package controller

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

func TestRenewalSchedule(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	notAfter := t0.Add(3 * time.Hour)
	at := kube.RenewalTime(t0, notAfter)
	assert.Equal(t, t0.Add(2*time.Hour), at, "2/3 of the validity")

	due, after := renewalSchedule(at, t0.Add(time.Hour))
	assert.False(t, due)
	assert.Equal(t, 66*time.Minute, after, "1.1 × the hour left to the 2/3 point")
	due, after = renewalSchedule(at, at)
	assert.True(t, due)
	assert.Zero(t, after)
	due, _ = renewalSchedule(at, notAfter.Add(time.Hour))
	assert.True(t, due, "expired")

	key := newConsumer(t, "schedule").key
	due, after, err := renewalDue(selfSigned(t, key, "schedule", time.Now().Add(-time.Hour), time.Now().Add(2*time.Hour)), time.Now())
	require.NoError(t, err)
	assert.False(t, due)
	assert.InDelta(t, float64(66*time.Minute), float64(after), float64(time.Minute))
	_, _, err = renewalDue([]byte("not a certificate"), time.Now())
	assert.Error(t, err)
}

// A certificate past 2/3 of its lifetime is replaced by a new one from the
// cluster's CA, in the status and in the cache.
func TestCertificateRenewedPastTwoThirds(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true})
	ctx := labtest.Context(t)
	cs := newConsumer(t, "renewal")
	tn := cs.handshake(t, p)
	ns := tn.Namespace

	old := selfSigned(t, cs.key, cs.id, time.Now().Add(-3*time.Hour), time.Now().Add(time.Hour))
	_, err := p.StoreCertificate(ctx, ns, cs.id, tn.Spec.CSR, old)
	require.NoError(t, err)
	tn.Status.AuthParams.SignedCRT = old
	_, err = p.Liqo.Tenants(ns).UpdateStatus(ctx, tn, metav1.UpdateOptions{})
	require.NoError(t, err)

	ev := waitEvent(t, p, authv1beta1.TenantKind, ns, cs.id, ReasonCertificateRenewed)
	assert.Equal(t, corev1.EventTypeNormal, ev.Type)
	got := waitTenant(t, p, ns, cs.id, func(got *authv1beta1.Tenant) bool {
		return statusFilled(got) && string(got.Status.AuthParams.SignedCRT) != string(old)
	})
	cert, err := kube.ParseCertificatePEM(got.Status.AuthParams.SignedCRT)
	require.NoError(t, err)
	assert.Equal(t, cs.id, cert.Subject.CommonName)
	assert.NotEqual(t, cert.Subject.String(), cert.Issuer.String(), "issued by the cluster CA")
	assert.WithinDuration(t, time.Now(), cert.NotBefore, 10*time.Minute)
	cached, err := p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, got.Status.AuthParams.SignedCRT, cached.Data["certificate"])
}

// selfSigned makes a client certificate for cn valid from notBefore to notAfter.
func selfSigned(t testing.TB, key crypto.Signer, cn string, notBefore, notAfter time.Time) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn, Organization: []string{kube.LiqoOrganization}},
		NotBefore:    notBefore, NotAfter: notAfter,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

package kube_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

func TestRenewalTimeIsTwoThirds(t *testing.T) {
	nb := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, nb.Add(240*24*time.Hour), kube.RenewalTime(nb, nb.Add(360*24*time.Hour)))
	_, err := kube.CertificateRenewalTime([]byte("-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n"))
	assert.Error(t, err)
}

func TestAdvertisedEndpoint(t *testing.T) {
	c := &kube.Cluster{Config: &rest.Config{Host: "10.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}}
	assert.Equal(t, "https://10.0.0.1:6443", c.AdvertisedAPIServer(""))
	assert.Equal(t, "https://api.example.com:6443", c.AdvertisedAPIServer("api.example.com:6443"))
	assert.Equal(t, "https://api.example.com", c.AdvertisedAPIServer("https://api.example.com/"))

	ca, err := c.AdvertisedCA(nil)
	require.NoError(t, err)
	assert.Equal(t, []byte("ca"), ca)
	ca, err = c.AdvertisedCA([]byte("override"))
	require.NoError(t, err)
	assert.Equal(t, []byte("override"), ca)

	file := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(file, []byte("from file"), 0o600))
	c.Config = &rest.Config{Host: "https://h", TLSClientConfig: rest.TLSClientConfig{CAFile: file}}
	ca, err = c.AdvertisedCA(nil)
	require.NoError(t, err)
	assert.Equal(t, []byte("from file"), ca)
	c.Config = &rest.Config{Host: "https://h"}
	ca, err = c.AdvertisedCA(nil)
	require.NoError(t, err)
	assert.Nil(t, ca)
}

// The provider issues a consumer's certificate once and then serves it from
// the liqo-remote-certificate Secret, refusing another CSR for that consumer.
func TestTenantCertificateCache(t *testing.T) {
	ctx := labtest.Context(t)
	c, err := kube.NewCluster(clusters[0].Config, "")
	require.NoError(t, err)
	const consumer = "cert-cache-consumer"
	ns, _, err := c.EnsureTenantNamespace(ctx, consumer)
	require.NoError(t, err)
	csr := newCSR(t, consumer)

	cached, err := c.CachedCertificate(ctx, ns.Name, csr)
	require.NoError(t, err)
	assert.Nil(t, cached, "nothing cached yet")

	cert, issued, err := c.TenantCertificate(ctx, ns.Name, consumer, csr, kube.TenantCertificateOptions{})
	require.NoError(t, err)
	assert.True(t, issued)
	parsed, err := kube.ParseCertificatePEM(cert)
	require.NoError(t, err)
	assert.Equal(t, consumer, parsed.Subject.CommonName)
	s, err := c.Kube.CoreV1().Secrets(ns.Name).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, consumer, s.Labels[kube.RemoteClusterIDLabel])
	assert.Equal(t, csr, s.Data[kube.RemoteCertCSRField])
	assert.Equal(t, cert, s.Data[kube.RemoteCertCertificateField])

	again, issued, err := c.TenantCertificate(ctx, ns.Name, consumer, csr, kube.TenantCertificateOptions{})
	require.NoError(t, err)
	assert.False(t, issued, "served from the cache")
	assert.Equal(t, cert, again)
	ch, err := c.StoreCertificate(ctx, ns.Name, consumer, csr, cert)
	require.NoError(t, err)
	assert.Equal(t, kube.Unchanged, ch.Action)

	otherKey, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	otherCSR, err := authcrypto.NewCSR(otherKey, consumer)
	require.NoError(t, err)
	_, _, err = c.TenantCertificate(ctx, ns.Name, consumer, otherCSR, kube.TenantCertificateOptions{})
	require.ErrorIs(t, err, kube.ErrStoredCSRMismatch)
	assert.Contains(t, err.Error(), "delete secret "+ns.Name+"/liqo-remote-certificate on the provider")

	renewed, issued, err := c.TenantCertificate(ctx, ns.Name, consumer, csr, kube.TenantCertificateOptions{Renew: true})
	require.NoError(t, err)
	assert.True(t, issued)
	assert.NotEqual(t, cert, renewed)
	cached, err = c.CachedCertificate(ctx, ns.Name, csr)
	require.NoError(t, err)
	assert.Equal(t, renewed, cached)
}

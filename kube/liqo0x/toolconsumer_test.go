package liqo0x

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// issuedPair is a key and a certificate for it, as a provider would issue.
func issuedPair(t *testing.T, cn string) (keyPEM, certPEM []byte) {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	keyPEM, err = authcrypto.EncodePrivateKeyPEM(key)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn, Organization: []string{kube.LiqoOrganization}},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	return keyPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// The kubeconfig of a 0.x identity has the v1 flow's layout: cluster entry
// <providerID>, user controlplane-<providerID>, the provider's tenant
// namespace as default namespace.
func TestKubeconfig(t *testing.T) {
	keyPEM, certPEM := issuedPair(t, fakeConsumerID)
	resp := &IdentityResponse{Namespace: "liqo-tenant-consumer-123456", Certificate: certPEM,
		APIServerURL: "https://203.0.113.1:6443", APIServerCA: []byte("CA")}
	data, err := Kubeconfig(fakeProviderID, resp, keyPEM)
	require.NoError(t, err)
	cfg, err := clientcmd.Load(data)
	require.NoError(t, err)
	ctx := cfg.Contexts[cfg.CurrentContext]
	require.NotNil(t, ctx)
	assert.Equal(t, fakeProviderID, ctx.Cluster)
	assert.Equal(t, kube.ControlPlaneIdentityName(fakeProviderID), ctx.AuthInfo)
	assert.Equal(t, resp.Namespace, ctx.Namespace)
	assert.Equal(t, resp.APIServerURL, cfg.Clusters[fakeProviderID].Server)
	assert.Equal(t, []byte("CA"), cfg.Clusters[fakeProviderID].CertificateAuthorityData)
	assert.Equal(t, certPEM, cfg.AuthInfos[ctx.AuthInfo].ClientCertificateData)
	assert.Equal(t, keyPEM, cfg.AuthInfos[ctx.AuthInfo].ClientKeyData)
}

// A certificate that is not for our key cannot authenticate: refused.
func TestKubeconfigRefusesAnotherKey(t *testing.T) {
	_, certPEM := issuedPair(t, fakeConsumerID)
	otherKey, _ := issuedPair(t, fakeConsumerID)
	_, err := Kubeconfig(fakeProviderID, &IdentityResponse{Namespace: "ns", Certificate: certPEM, APIServerURL: "https://a"}, otherKey)
	assert.ErrorContains(t, err, "does not match the pending key")
	_, err = Kubeconfig(fakeProviderID, nil, otherKey)
	assert.Error(t, err)
}

// A pending request is reused only when it is for this consumer ID and its
// key signed its CSR.
func TestValidPendingRequest(t *testing.T) {
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	keyPEM, err := authcrypto.EncodePrivateKeyPEM(key)
	require.NoError(t, err)
	csr, err := authcrypto.NewCSR(key, fakeConsumerID)
	require.NoError(t, err)
	otherKey, _ := issuedPair(t, "x")
	assert.True(t, validPendingRequest(keyPEM, csr, fakeConsumerID))
	assert.False(t, validPendingRequest(keyPEM, csr, fakeProviderID), "made for another cluster ID")
	assert.False(t, validPendingRequest(otherKey, csr, fakeConsumerID), "another key")
	assert.False(t, validPendingRequest(nil, csr, fakeConsumerID), "damaged")
}

package realliqo0x

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A folder without the build says which command builds it.
func TestDirMissingSaysHowToBuild(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	_, err := Dir()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the Liqo v0.10.1 binaries are not built")
	assert.Contains(t, err.Error(), "`make liqo0x`")
}

// The auth server's pair looks like the chart's: self-signed, subject
// C=IT/ST=Turin/O=Liqo, no SAN (so a client can only skip verification),
// and the key matches the certificate.
func TestAuthServerPairIsChartLike(t *testing.T) {
	certPath, keyPath, certPEM, err := writeAuthServerPair(t.TempDir())
	require.NoError(t, err)
	_, err = tls.LoadX509KeyPair(certPath, keyPath)
	require.NoError(t, err)
	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	assert.Equal(t, "O=Liqo,ST=Turin,C=IT", cert.Subject.String())
	assert.Equal(t, cert.Subject.String(), cert.Issuer.String())
	assert.Empty(t, cert.DNSNames)
	assert.Empty(t, cert.IPAddresses)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"})
	assert.Error(t, err, "no name can verify")
}

// The webhook pair lands where controller-runtime looks under TMPDIR.
func TestWebhookPairUnderTMPDIR(t *testing.T) {
	tmp, err := writeWebhookPair(t.TempDir())
	require.NoError(t, err)
	certs := filepath.Join(tmp, "k8s-webhook-server", "serving-certs")
	_, err = tls.LoadX509KeyPair(filepath.Join(certs, "tls.crt"), filepath.Join(certs, "tls.key"))
	require.NoError(t, err)
}

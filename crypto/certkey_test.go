package crypto

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A certificate is for its own key, not for another; either unreadable is
// an error, not a verdict.
func TestCertificateForKey(t *testing.T) {
	cert := selfSignedCertPEM(t)
	own, err := EncodePublicKeyPEM(vectorKey().Public())
	require.NoError(t, err)
	other, err := GenerateKey(KeyEd25519)
	require.NoError(t, err)
	otherPEM, err := EncodePublicKeyPEM(other.Public())
	require.NoError(t, err)

	forKey, err := CertificateForKey(cert, own)
	require.NoError(t, err)
	assert.True(t, forKey)
	forKey, err = CertificateForKey(cert, otherPEM)
	require.NoError(t, err)
	assert.False(t, forKey)
	_, err = CertificateForKey([]byte("garbage"), own)
	assert.Error(t, err)
	_, err = CertificateForKey(cert, []byte("garbage"))
	assert.Error(t, err)
}

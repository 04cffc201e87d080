package crypto

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFingerprintPerKey(t *testing.T) {
	for _, k := range testKeys(t) {
		fp, err := Fingerprint(k.priv.Public())
		require.NoError(t, err)
		assert.Regexp(t, `^SHA256:[A-Za-z0-9+/]{43}$`, fp, k.name)

		// The same key parsed back from PEM has the same fingerprint.
		pubPEM, err := EncodePublicKeyPEM(k.priv.Public())
		require.NoError(t, err)
		pub, err := ParsePublicKeyPEM(pubPEM)
		require.NoError(t, err)
		again, err := Fingerprint(pub)
		require.NoError(t, err)
		assert.Equal(t, fp, again)
	}
}

func TestCertificateFingerprint(t *testing.T) {
	cert := selfSignedCertPEM(t)
	block, _ := pem.Decode(cert)
	sum := sha256.Sum256(block.Bytes)
	want := "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])

	other, err := GenerateKey(KeyEd25519)
	require.NoError(t, err)
	otherPEM, err := EncodePrivateKeyPEM(other)
	require.NoError(t, err)

	for name, in := range map[string][]byte{
		"single certificate":           cert,
		"bundle: first one counts":     append(append([]byte(nil), cert...), readTestdata(t, "openssl-rsa-2048-csr.pem")...),
		"text and other blocks before": append(append([]byte("# provider CA\n"), otherPEM...), cert...),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := CertificateFingerprint(in)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}

	_, err = CertificateFingerprint(nil)
	assert.EqualError(t, err, "no CERTIFICATE PEM block found")
	_, err = CertificateFingerprint(readTestdata(t, "vector-csr.pem"))
	assert.EqualError(t, err, "no CERTIFICATE PEM block found")
	_, err = CertificateFingerprint([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
	assert.ErrorContains(t, err, "invalid certificate: x509: ")
}

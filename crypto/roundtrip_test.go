package crypto

import (
	stdcrypto "crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoundTrip runs the whole consumer → provider exchange with freshly
// generated keys of each supported type.
func TestRoundTrip(t *testing.T) {
	gen := map[string]func() (stdcrypto.Signer, error){
		"Ed25519":  func() (stdcrypto.Signer, error) { return GenerateKey(KeyEd25519) },
		"RSA-2048": func() (stdcrypto.Signer, error) { return GenerateKey(KeyRSA) },
		// Liqo never generates ECDSA keys but uses them if found (§1.2).
		"ECDSA-P256": func() (stdcrypto.Signer, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) },
	}
	for name, generate := range gen {
		t.Run(name, func(t *testing.T) {
			priv, err := generate()
			require.NoError(t, err)

			// Secret authentication-keys: encode, then read back.
			privPEM, err := EncodePrivateKeyPEM(priv)
			require.NoError(t, err)
			pubPEM, err := EncodePublicKeyPEM(priv.Public())
			require.NoError(t, err)
			loaded, err := ParsePrivateKeyPEM(privPEM)
			require.NoError(t, err)
			assert.True(t, SamePublicKey(priv.Public(), loaded.Public()))
			assert.Equal(t, name, KeyAlgorithm(loaded.Public()))
			again, err := EncodePrivateKeyPEM(loaded)
			require.NoError(t, err)
			assert.Equal(t, privPEM, again)

			// Consumer: sign the provider's nonce and build the CSR.
			nonce, err := NewNonce()
			require.NoError(t, err)
			require.NoError(t, ValidateNonce(nonce))
			sig, err := SignNonce(loaded, []byte(nonce))
			require.NoError(t, err)
			csr, err := NewCSR(loaded, "consumer-1")
			require.NoError(t, err)

			// Provider: parse the Tenant public key, verify, check the CSR.
			pub, err := ParsePublicKey(pubPEM)
			require.NoError(t, err)
			pubFromPEM, err := ParsePublicKeyPEM(pubPEM)
			require.NoError(t, err)
			assert.True(t, SamePublicKey(pub, pubFromPEM))
			require.NoError(t, VerifyNonce(pub, []byte(nonce), sig))
			require.NoError(t, CheckCSR(csr, "consumer-1", pub))

			fpPriv, err := Fingerprint(priv.Public())
			require.NoError(t, err)
			fpPub, err := Fingerprint(pub)
			require.NoError(t, err)
			assert.Equal(t, fpPriv, fpPub)
		})
	}
}

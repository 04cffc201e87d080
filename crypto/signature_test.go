package crypto

import (
	stdcrypto "crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opaqueSigner hides the concrete key type, like a KMS or HSM signer would.
type opaqueSigner struct{ k stdcrypto.Signer }

func (o opaqueSigner) Public() stdcrypto.PublicKey { return o.k.Public() }
func (o opaqueSigner) Sign(r io.Reader, d []byte, opts stdcrypto.SignerOpts) ([]byte, error) {
	return o.k.Sign(r, d, opts)
}

func TestSignVerifyAllKeyTypes(t *testing.T) {
	nonce := readTestdata(t, "vector-nonce.txt")
	for _, k := range testKeys(t) {
		t.Run(k.name, func(t *testing.T) {
			sig, err := SignNonce(k.priv, nonce)
			require.NoError(t, err)
			require.NoError(t, VerifyNonce(k.priv.Public(), nonce, sig))

			sig, err = SignNonce(opaqueSigner{k.priv}, nonce)
			require.NoError(t, err)
			require.NoError(t, VerifyNonce(k.priv.Public(), nonce, sig))
		})
	}
}

// TestSignatureMatchesOpenSSL checks RSA and ECDSA against signatures made by
// `openssl dgst -sha256 -sign` (see testdata/crypto/README.md).
func TestSignatureMatchesOpenSSL(t *testing.T) {
	nonce := readTestdata(t, "vector-nonce.txt")

	rsaKey, err := ParsePrivateKeyPEM(readTestdata(t, "rsa-2048-private-key.pem"))
	require.NoError(t, err)
	opensslRSA := readBase64Testdata(t, "rsa-2048-nonce-signature.b64")
	ours, err := SignNonce(rsaKey, nonce)
	require.NoError(t, err)
	assert.Equal(t, opensslRSA, ours, "PKCS#1 v1.5 is deterministic")
	assert.NoError(t, VerifyNonce(rsaKey.Public(), nonce, opensslRSA))

	ecKey, err := ParsePrivateKeyPEM(readTestdata(t, "ecdsa-p256-private-key.pem"))
	require.NoError(t, err)
	assert.NoError(t, VerifyNonce(ecKey.Public(), nonce, readBase64Testdata(t, "ecdsa-p256-nonce-signature.b64")))
}

func TestSignNonceRejects(t *testing.T) {
	_, err := SignNonce(nil, []byte("n"))
	assert.EqualError(t, err, "signing nonce: no private key given")
	_, err = SignNonce((*rsa.PrivateKey)(nil), []byte("n"))
	assert.EqualError(t, err, "signing nonce: no private key given")
	_, err = SignNonce(ed25519.PrivateKey(make([]byte, 63)), []byte("n"))
	assert.EqualError(t, err, "signing nonce: invalid Ed25519 private key length: 63 bytes, want 64")
	_, err = SignNonce(vectorKey(), nil)
	assert.EqualError(t, err, "signing nonce: refusing to sign an empty nonce")
}

func TestVerifyNonceRejects(t *testing.T) {
	nonce := readTestdata(t, "vector-nonce.txt")
	keys := testKeys(t)
	edPub, rsaPub, ecPub := keys[0].priv.Public(), keys[1].priv.Public(), keys[2].priv.Public()
	edSig := readTenantSpec(t).Signature
	rsaSig := readBase64Testdata(t, "rsa-2048-nonce-signature.b64")
	ecSig := readBase64Testdata(t, "ecdsa-p256-nonce-signature.b64")
	otherKey, err := GenerateKey(KeyEd25519)
	require.NoError(t, err)
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	flipped := append([]byte(nil), edSig...)
	flipped[10] ^= 1
	otherNonce := append([]byte(nil), nonce...)
	otherNonce[0] = 'A'

	tests := []struct {
		name      string
		pub       stdcrypto.PublicKey
		nonce     []byte
		signature []byte
		wantErr   string
	}{
		{"wrong nonce", edPub, otherNonce, edSig, "Ed25519 signature does not match the nonce and public key"},
		{"decoded nonce signed", edPub, vectorNonceBytes(), edSig, "Ed25519 signature does not match the nonce and public key"},
		{"nonce with newline", edPub, append(nonce[:88:88], '\n'), edSig, "Ed25519 signature does not match the nonce and public key"},
		{"another key", otherKey.Public(), nonce, edSig, "Ed25519 signature does not match the nonce and public key"},
		{"flipped bit", edPub, nonce, flipped, "Ed25519 signature does not match the nonce and public key"},
		{"truncated Ed25519 signature", edPub, nonce, edSig[:63], "Ed25519 signature is 63 bytes, want 64"},
		{"RSA signature for Ed25519 key", edPub, nonce, rsaSig, "Ed25519 signature is 256 bytes, want 64"},
		{"Ed25519 signature for RSA key", rsaPub, nonce, edSig, "RSA signature does not match the nonce and public key"},
		{"RSA wrong nonce", rsaPub, otherNonce, rsaSig, "RSA signature does not match the nonce and public key"},
		{"ECDSA wrong nonce", ecPub, otherNonce, ecSig, "ECDSA signature does not match the nonce and public key"},
		{"ECDSA garbage", ecPub, nonce, []byte("garbage"), "ECDSA signature does not match the nonce and public key"},
		{"empty signature", edPub, nonce, nil, "empty signature"},
		{"empty nonce", edPub, nil, edSig, "empty nonce"},
		{"no key", nil, nonce, edSig, "no public key given"},
		{"short Ed25519 key", ed25519.PublicKey(make([]byte, 31)), nonce, edSig, "invalid Ed25519 public key length: 31 bytes, want 32"},
		{"nil RSA key", (*rsa.PublicKey)(nil), nonce, rsaSig, "RSA public key has no modulus"},
		{"empty ECDSA key", &ecdsa.PublicKey{}, nonce, ecSig, "ECDSA public key is incomplete"},
		{"X25519 key", x25519.PublicKey(), nonce, edSig, "unsupported key type *ecdh.PublicKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyNonce(tt.pub, tt.nonce, tt.signature)
			require.Error(t, err)
			want := "signature verification failed: " + tt.wantErr
			assert.True(t, strings.HasPrefix(err.Error(), want), "got %q, want prefix %q", err, want)
		})
	}
}

package crypto

import (
	stdcrypto "crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseKeyType(t *testing.T) {
	for _, s := range []string{"ed25519", "rsa"} {
		kt, err := ParseKeyType(s)
		require.NoError(t, err)
		assert.Equal(t, KeyType(s), kt)
	}
	for _, s := range []string{"", "Ed25519", "RSA", "ecdsa", " rsa"} {
		_, err := ParseKeyType(s)
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), `allowed values are "ed25519" and "rsa"`)
	}
}

func TestGenerateKey(t *testing.T) {
	ed, err := GenerateKey(KeyEd25519)
	require.NoError(t, err)
	assert.IsType(t, ed25519.PrivateKey{}, ed)
	assert.Equal(t, "Ed25519", KeyAlgorithm(ed.Public()))

	r, err := GenerateKey(KeyRSA)
	require.NoError(t, err)
	assert.IsType(t, &rsa.PrivateKey{}, r)
	assert.Equal(t, "RSA-2048", KeyAlgorithm(r.Public()))

	_, err = GenerateKey("dsa")
	assert.EqualError(t, err, `unknown key type "dsa": allowed values are "ed25519" and "rsa"`)
}

func TestKeyAlgorithm(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)

	for _, k := range testKeys(t) {
		assert.Equal(t, k.name, KeyAlgorithm(k.priv.Public()))
	}
	assert.Equal(t, "ECDSA-P384", KeyAlgorithm(p384.Public()))
	assert.Equal(t, "none", KeyAlgorithm(nil))
	assert.Equal(t, "RSA", KeyAlgorithm((*rsa.PublicKey)(nil)))
	assert.Equal(t, "ECDSA", KeyAlgorithm(&ecdsa.PublicKey{}))
	assert.Equal(t, "unsupported (*ecdh.PublicKey)", KeyAlgorithm(x25519.PublicKey()))
}

func TestKeyTypeOf(t *testing.T) {
	for _, kt := range []KeyType{KeyEd25519, KeyRSA} {
		k, err := GenerateKey(kt)
		require.NoError(t, err)
		got, ok := KeyTypeOf(k.Public())
		assert.True(t, ok, kt)
		assert.Equal(t, kt, got)
	}
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	for _, pub := range []stdcrypto.PublicKey{p256.Public(), nil} {
		_, ok := KeyTypeOf(pub)
		assert.False(t, ok, "%T", pub)
	}
}

func TestSamePublicKey(t *testing.T) {
	keys := testKeys(t)
	for i, a := range keys {
		for j, b := range keys {
			assert.Equal(t, i == j, SamePublicKey(a.priv.Public(), b.priv.Public()), "%s vs %s", a.name, b.name)
		}
	}
	assert.False(t, SamePublicKey(nil, nil), "keys that cannot be encoded are never equal")
	assert.False(t, SamePublicKey(ed25519.PublicKey{1, 2, 3}, ed25519.PublicKey{1, 2, 3}))
}

func TestParsePrivateKeyPEMAccepts(t *testing.T) {
	vector := readTestdata(t, "vector-private-key.pem")
	for name, in := range map[string][]byte{
		"as written":         vector,
		"no final newline":   vector[:len(vector)-1],
		"CRLF line endings":  []byte(strings.ReplaceAll(string(vector), "\n", "\r\n")),
		"spaces after END":   append(vector[:len(vector)-1:len(vector)-1], []byte("  \n")...),
		"RSA from openssl":   readTestdata(t, "rsa-2048-private-key.pem"),
		"ECDSA from openssl": readTestdata(t, "ecdsa-p256-private-key.pem"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParsePrivateKeyPEM(in)
			assert.NoError(t, err)
		})
	}
}

func TestParsePrivateKeyPEMRejects(t *testing.T) {
	vector := readTestdata(t, "vector-private-key.pem")
	rsaKey, err := ParsePrivateKeyPEM(readTestdata(t, "rsa-2048-private-key.pem"))
	require.NoError(t, err)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey.(*rsa.PrivateKey))})
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	x25519DER, err := x509.MarshalPKCS8PrivateKey(x25519)
	require.NoError(t, err)

	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "invalid private key: no PEM block found"},
		{"garbage", "not a key at all", "invalid private key: no PEM block found"},
		{"truncated PEM", string(vector[:60]), "invalid private key: no PEM block found: the data contains a malformed PEM block"},
		{"public key", string(readTestdata(t, "vector-public-key.pem")), `invalid private key: unexpected PEM block type "PUBLIC KEY", want PRIVATE KEY`},
		{"PKCS#1 RSA", string(pkcs1), `invalid private key: unexpected PEM block type "RSA PRIVATE KEY", want PRIVATE KEY (legacy format: convert it with ` + "`openssl pkcs8 -topk8 -nocrypt`)"},
		{"CSR", string(readTestdata(t, "vector-csr.pem")), `invalid private key: unexpected PEM block type "CERTIFICATE REQUEST", want PRIVATE KEY`},
		{"trailing text", string(vector) + "junk", "invalid private key: trailing data after PEM block: 4 extra bytes"},
		{"two newlines", string(vector) + "\n", `invalid private key: trailing data after PEM block: 1 extra byte ("\n")`},
		{"two blocks", string(vector) + string(vector), `invalid private key: trailing data after PEM block: a second PEM block ("PRIVATE KEY")`},
		{"text before", "key:\n" + string(vector), "invalid private key: unexpected data before PEM block"},
		{"malformed first block", strings.Replace(string(vector), "MC4C", "M*4C", 1) + string(vector), "invalid private key: malformed PEM block"},
		{"encrypted", "-----BEGIN PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nMC4CAQAwBQYDK2VwBCIEIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g\n-----END PRIVATE KEY-----\n", "invalid private key: unexpected PEM headers: encrypted PEM is not supported"},
		{"headers", "-----BEGIN PRIVATE KEY-----\nComment: x\n\nMC4CAQAwBQYDK2VwBCIEIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g\n-----END PRIVATE KEY-----\n", "invalid private key: unexpected PEM headers"},
		{"garbage DER", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "invalid private key: not a PKCS#8 private key: "},
		{"X25519", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: x25519DER})), "invalid private key: unsupported key type *ecdh.PrivateKey (want Ed25519, RSA or ECDSA)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParsePrivateKeyPEM([]byte(tt.in))
			require.Error(t, err)
			assert.Nil(t, k)
			assert.True(t, strings.HasPrefix(err.Error(), tt.wantErr), "got %q, want prefix %q", err, tt.wantErr)
		})
	}
}

func TestParsePublicKeyRejects(t *testing.T) {
	pubPEM := readTestdata(t, "vector-public-key.pem")
	raw := readBase64Testdata(t, "vector-public-key-raw.b64")
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	x25519DER, err := x509.MarshalPKIXPublicKey(x25519.PublicKey())
	require.NoError(t, err)
	rsaKey, err := ParsePrivateKeyPEM(readTestdata(t, "rsa-2048-private-key.pem"))
	require.NoError(t, err)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(rsaKey.Public().(*rsa.PublicKey))})

	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "invalid public key format: 0 bytes that are neither a PEM PUBLIC KEY block nor a raw 32-byte Ed25519 key"},
		{"legacy raw 31 bytes", string(raw[:31]), "invalid public key format: 31 bytes"},
		{"legacy raw 33 bytes", string(append(raw[:32:32], 0)), "invalid public key format: 33 bytes"},
		{"base64 of the raw key", string(readTestdata(t, "vector-public-key-raw.b64")), "invalid public key format: 44 bytes"},
		{"private key", string(readTestdata(t, "vector-private-key.pem")), `invalid public key: unexpected PEM block type "PRIVATE KEY", want PUBLIC KEY`},
		{"PKCS#1 RSA", string(pkcs1), `invalid public key: unexpected PEM block type "RSA PUBLIC KEY", want PUBLIC KEY (PKCS#1 format`},
		{"trailing data", string(pubPEM) + "x", "invalid public key: trailing data after PEM block: 1 extra byte"},
		{"two blocks", string(pubPEM) + string(pubPEM), `invalid public key: trailing data after PEM block: a second PEM block ("PUBLIC KEY")`},
		{"garbage DER", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "invalid public key: not a PKIX public key: "},
		{"X25519", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: x25519DER})), "invalid public key: unsupported key type *ecdh.PublicKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParsePublicKey([]byte(tt.in))
			require.Error(t, err)
			assert.Nil(t, k)
			assert.True(t, strings.HasPrefix(err.Error(), tt.wantErr), "got %q, want prefix %q", err, tt.wantErr)
		})
	}
}

func TestParsePublicKeyLegacyRaw(t *testing.T) {
	raw := readBase64Testdata(t, "vector-public-key-raw.b64")
	buf := append([]byte(nil), raw...)
	pub, err := ParsePublicKey(buf)
	require.NoError(t, err)
	assert.Equal(t, ed25519.PublicKey(raw), pub)

	buf[0] ^= 0xFF
	assert.Equal(t, ed25519.PublicKey(raw), pub, "the parsed key must not alias the input")

	// ParsePublicKeyPEM accepts only PEM.
	_, err = ParsePublicKeyPEM(raw)
	assert.EqualError(t, err, "invalid public key: no PEM block found")
}

func TestPublicKeyDERRejects(t *testing.T) {
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	tests := []struct {
		name    string
		pub     stdcrypto.PublicKey
		wantErr string
	}{
		{"nil", nil, "no public key given"},
		{"short Ed25519", ed25519.PublicKey(make([]byte, 31)), "invalid Ed25519 public key length: 31 bytes, want 32"},
		{"nil RSA", (*rsa.PublicKey)(nil), "RSA public key has no modulus"},
		{"empty ECDSA", &ecdsa.PublicKey{}, "ECDSA public key is incomplete"},
		{"X25519", x25519.PublicKey(), "unsupported key type *ecdh.PublicKey (want Ed25519, RSA or ECDSA)"},
		{"private key", vectorKey(), "unsupported key type ed25519.PrivateKey (want Ed25519, RSA or ECDSA)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := PublicKeyDER(tt.pub)
			assert.EqualError(t, err, tt.wantErr)
			_, err = EncodePublicKeyPEM(tt.pub)
			assert.EqualError(t, err, tt.wantErr)
			_, err = Fingerprint(tt.pub)
			assert.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestEncodePrivateKeyPEMRejects(t *testing.T) {
	_, err := EncodePrivateKeyPEM(nil)
	assert.EqualError(t, err, "no private key given")
	_, err = EncodePrivateKeyPEM(ed25519.PrivateKey(make([]byte, 10)))
	assert.EqualError(t, err, "invalid Ed25519 private key length: 10 bytes, want 64")
}

// A Renew's public key as Liqo v1.0–v1.1 consumers send it (PKIX DER), and
// as PEM or the legacy raw key; anything else is refused.
func TestParseRenewPublicKey(t *testing.T) {
	for _, k := range testKeys(t) {
		der, err := PublicKeyDER(k.priv.Public())
		require.NoError(t, err)
		pemKey, err := EncodePublicKeyPEM(k.priv.Public())
		require.NoError(t, err)
		for name, b := range map[string][]byte{"DER": der, "PEM": pemKey} {
			pub, err := ParseRenewPublicKey(b)
			require.NoError(t, err, "%s %s", k.name, name)
			assert.True(t, SamePublicKey(k.priv.Public(), pub), "%s %s", k.name, name)
		}
	}
	raw := readBase64Testdata(t, "vector-public-key-raw.b64")
	pub, err := ParseRenewPublicKey(raw)
	require.NoError(t, err)
	assert.Equal(t, ed25519.PublicKey(raw), pub)

	_, err = ParseRenewPublicKey([]byte("not a key"))
	assert.ErrorContains(t, err, "invalid public key format: 9 bytes")
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKIXPublicKey(x25519.PublicKey())
	require.NoError(t, err)
	_, err = ParseRenewPublicKey(der)
	assert.ErrorContains(t, err, "invalid public key: unsupported key type")
}

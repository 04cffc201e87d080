package crypto

import (
	stdcrypto "crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// vectorClusterID is the consumer cluster ID of the §13 vectors.
const vectorClusterID = "consumer-cluster"

// readTestdata returns a fixture from /testdata/crypto.
func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "crypto", name))
	require.NoError(tb, err)
	return b
}

// readBase64Testdata decodes a fixture holding standard base64.
func readBase64Testdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(readTestdata(tb, name))))
	require.NoError(tb, err)
	return b
}

// vectorSeed is the §13 Ed25519 seed: bytes 0x01..0x20.
func vectorSeed() []byte {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i + 1)
	}
	return seed
}

// vectorNonceBytes are the §13 random bytes: 0xFF down to 0xC0.
func vectorNonceBytes() []byte {
	b := make([]byte, nonceBytes)
	for i := range b {
		b[i] = byte(0xFF - i)
	}
	return b
}

func vectorKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(vectorSeed())
}

// testKey is one key per supported algorithm, loaded from fixtures so tests
// and fuzz workers do not pay for RSA key generation.
type testKey struct {
	name string
	priv stdcrypto.Signer
}

func testKeys(tb testing.TB) []testKey {
	tb.Helper()
	keys := []testKey{{name: "Ed25519", priv: vectorKey()}}
	for _, f := range []struct{ name, file string }{
		{"RSA-2048", "rsa-2048-private-key.pem"},
		{"ECDSA-P256", "ecdsa-p256-private-key.pem"},
	} {
		k, err := ParsePrivateKeyPEM(readTestdata(tb, f.file))
		require.NoError(tb, err)
		keys = append(keys, testKey{name: f.name, priv: k})
	}
	return keys
}

// selfSignedCertPEM returns a deterministic CA certificate made with the
// vector key, standing in for a provider's API-server CA.
func selfSignedCertPEM(tb testing.TB) []byte {
	tb.Helper()
	k := vectorKey()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubernetes"},
		NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, k.Public(), k)
	require.NoError(tb, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

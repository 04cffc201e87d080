package crypto

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenantSpec holds the §13 Tenant fields with Kubernetes' []byte encoding
// (standard base64 with padding in JSON).
type tenantSpec struct {
	ClusterID string `json:"clusterID"`
	PublicKey []byte `json:"publicKey"`
	CSR       []byte `json:"csr"`
	Signature []byte `json:"signature"`
}

func TestVectorPrivateKey(t *testing.T) {
	wantPEM := readTestdata(t, "vector-private-key.pem")

	gotPEM, err := EncodePrivateKeyPEM(vectorKey())
	require.NoError(t, err)
	assert.Equal(t, string(wantPEM), string(gotPEM))
	assert.Len(t, gotPEM, 119, "spec §1.2: Ed25519 private key PEM is 119 bytes")

	k, err := ParsePrivateKeyPEM(wantPEM)
	require.NoError(t, err)
	assert.Equal(t, vectorKey(), k)
}

func TestVectorPublicKey(t *testing.T) {
	priv, err := ParsePrivateKeyPEM(readTestdata(t, "vector-private-key.pem"))
	require.NoError(t, err)

	gotPEM, err := EncodePublicKeyPEM(priv.Public())
	require.NoError(t, err)
	assert.Equal(t, string(readTestdata(t, "vector-public-key.pem")), string(gotPEM))
	assert.Len(t, gotPEM, 113, "spec §1.2: Ed25519 public key PEM is 113 bytes")

	der, err := PublicKeyDER(priv.Public())
	require.NoError(t, err)
	assert.Len(t, der, 44)

	raw := readBase64Testdata(t, "vector-public-key-raw.b64")
	assert.Equal(t, []byte(priv.Public().(ed25519.PublicKey)), raw)

	// The provider accepts both forms (§6.2 step 3) and they are the same key.
	fromPEM, err := ParsePublicKey(gotPEM)
	require.NoError(t, err)
	fromRaw, err := ParsePublicKey(raw)
	require.NoError(t, err)
	assert.True(t, SamePublicKey(fromPEM, fromRaw))
	assert.True(t, SamePublicKey(priv.Public(), fromRaw))
}

func TestVectorNonce(t *testing.T) {
	want := string(readTestdata(t, "vector-nonce.txt"))
	got := base64.StdEncoding.EncodeToString(vectorNonceBytes())
	assert.Equal(t, want, got)
	assert.Len(t, got, NonceLength)
	assert.NoError(t, ValidateNonce(got))
}

func TestVectorSignature(t *testing.T) {
	nonce := readTestdata(t, "vector-nonce.txt")
	spec := readTenantSpec(t)

	sig, err := SignNonce(vectorKey(), nonce)
	require.NoError(t, err)
	assert.Equal(t, spec.Signature, sig)
	assert.Len(t, sig, ed25519.SignatureSize)

	pub, err := ParsePublicKey(spec.PublicKey)
	require.NoError(t, err)
	assert.NoError(t, VerifyNonce(pub, nonce, spec.Signature))
}

func TestVectorCSR(t *testing.T) {
	want := readTestdata(t, "vector-csr.pem")

	got, err := NewCSR(vectorKey(), vectorClusterID)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	// Deterministic for Ed25519 (§5.4).
	again, err := NewCSR(vectorKey(), vectorClusterID)
	require.NoError(t, err)
	assert.Equal(t, got, again)

	assert.NoError(t, CheckCSR(want, vectorClusterID, vectorKey().Public()))
}

// TestVectorTenantSpec checks the values as they appear in the Tenant JSON:
// decoding the fixture and re-encoding our own output must both match.
func TestVectorTenantSpec(t *testing.T) {
	spec := readTenantSpec(t)
	assert.Equal(t, vectorClusterID, spec.ClusterID)

	pubPEM, err := EncodePublicKeyPEM(vectorKey().Public())
	require.NoError(t, err)
	csr, err := NewCSR(vectorKey(), vectorClusterID)
	require.NoError(t, err)
	sig, err := SignNonce(vectorKey(), readTestdata(t, "vector-nonce.txt"))
	require.NoError(t, err)

	ours, err := json.MarshalIndent(tenantSpec{
		ClusterID: vectorClusterID, PublicKey: pubPEM, CSR: csr, Signature: sig,
	}, "", "  ")
	require.NoError(t, err)
	assert.Equal(t, string(readTestdata(t, "vector-tenant-spec.json")), string(ours)+"\n")

	// And the provider side accepts what it decodes.
	pub, err := ParsePublicKey(spec.PublicKey)
	require.NoError(t, err)
	assert.NoError(t, VerifyNonce(pub, readTestdata(t, "vector-nonce.txt"), spec.Signature))
	assert.NoError(t, CheckCSR(spec.CSR, spec.ClusterID, pub))
}

func TestVectorFingerprint(t *testing.T) {
	fp, err := Fingerprint(vectorKey().Public())
	require.NoError(t, err)
	// openssl pkey -pubin -in vector-public-key.pem -outform DER |
	//   openssl dgst -sha256 -binary | base64 | tr -d =
	assert.Equal(t, "SHA256:ZG1r5J2fAEj5T2d0nso1FW7tT3p74Y5PxKlL/UTjALA", fp)

	der, err := PublicKeyDER(vectorKey().Public())
	require.NoError(t, err)
	assert.Equal(t, fingerprintDER(der), fp)
}

func readTenantSpec(t *testing.T) tenantSpec { return readTenantSpecTB(t) }

func readTenantSpecTB(tb testing.TB) tenantSpec {
	tb.Helper()
	var spec tenantSpec
	require.NoError(tb, json.Unmarshal(readTestdata(tb, "vector-tenant-spec.json"), &spec))
	return spec
}

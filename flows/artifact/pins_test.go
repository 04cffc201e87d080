package artifact_test

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// tenantWithNewKey is a Tenant of consumer "consumer" made with a new key,
// and the key's fingerprint.
func tenantWithNewKey(t *testing.T) (*authv1beta1.Tenant, string) {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	pub, err := authcrypto.EncodePublicKeyPEM(key.Public())
	require.NoError(t, err)
	fp, err := authcrypto.Fingerprint(key.Public())
	require.NoError(t, err)
	csr, err := authcrypto.NewCSR(key, "consumer")
	require.NoError(t, err)
	sig, err := authcrypto.SignNonce(key, []byte("provider-nonce"))
	require.NoError(t, err)
	return &authv1beta1.Tenant{Spec: authv1beta1.TenantSpec{ClusterID: "consumer", PublicKey: pub, CSR: csr, Signature: sig}}, fp
}

func TestParsePin(t *testing.T) {
	_, fp := tenantWithNewKey(t)
	got, err := artifact.ParsePin("consumer-fingerprint", " "+fp+"\n")
	require.NoError(t, err)
	assert.Equal(t, fp, got, "blanks around a pasted fingerprint are dropped")
	got, err = artifact.ParsePin("consumer-fingerprint", "")
	require.NoError(t, err)
	assert.Empty(t, got, "no pin")
	for _, bad := range []string{"SHA256:abc", strings.TrimPrefix(fp, "SHA256:"), "MD5:" + strings.TrimPrefix(fp, "SHA256:"), fp + "x", fp[:len(fp)-1] + "!"} {
		_, err := artifact.ParsePin("consumer-fingerprint", bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "--consumer-fingerprint")
		assert.Contains(t, err.Error(), "liqo-auth-tui info")
	}
}

// A Tenant made with another key than the pinned one is refused in words
// that say what happened and what to do; the pinned one passes.
func TestCheckTenantPin(t *testing.T) {
	real, realFP := tenantWithNewKey(t)
	forged, forgedFP := tenantWithNewKey(t)
	require.NoError(t, artifact.CheckTenantPin(real, realFP))
	require.NoError(t, artifact.CheckTenantPin(forged, ""), "without a pin, any key passes (as in Liqo)")
	err := artifact.CheckTenantPin(forged, realFP)
	var mismatch *artifact.PinMismatchError
	require.True(t, errors.As(err, &mismatch), "%v", err)
	assert.Equal(t, "this Tenant was signed by a different key than the consumer's: "+realFP+" expected, "+forgedFP+
		" received — do not apply it; ask the consumer's admin to send it again through another channel", err.Error())
}

func TestCheckIdentityCAPin(t *testing.T) {
	real := &authv1beta1.Identity{Spec: authv1beta1.IdentitySpec{AuthParams: authv1beta1.AuthParams{CA: newCAPEM(t), APIServer: "https://p:6443"}}}
	pin, err := artifact.IdentityCAFingerprint(real)
	require.NoError(t, err)
	require.NoError(t, artifact.CheckIdentityCAPin(real, pin))
	forged := real.DeepCopy()
	forged.Spec.AuthParams.CA, forged.Spec.AuthParams.APIServer = newCAPEM(t), "https://attacker:6443"
	err = artifact.CheckIdentityCAPin(forged, pin)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "this Identity carries a different CA than the provider's (API server https://attacker:6443): "+pin+" expected")
	assert.Contains(t, err.Error(), "do not apply it; ask the provider's admin to send it again through another channel")
}

// newCAPEM is a new self-signed CA certificate.
func newCAPEM(t *testing.T) []byte {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

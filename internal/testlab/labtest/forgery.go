package labtest

import (
	stdcrypto "crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ForgeTenant is what an attacker who intercepted the nonce sends: real
// (the consumer's Tenant) made and signed again with the attacker's own
// key, still claiming the consumer's ID. Its signature verifies against
// the key inside it, as Liqo checks it.
func ForgeTenant(t testing.TB, real *authv1beta1.Tenant, nonce string) *authv1beta1.Tenant {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	if err != nil {
		t.Fatal(err)
	}
	forged := real.DeepCopy()
	if forged.Spec.Signature, err = authcrypto.SignNonce(key, []byte(nonce)); err != nil {
		t.Fatal(err)
	}
	if forged.Spec.PublicKey, err = authcrypto.EncodePublicKeyPEM(key.Public()); err != nil {
		t.Fatal(err)
	}
	if forged.Spec.CSR, err = authcrypto.NewCSR(key, real.Spec.ClusterID); err != nil {
		t.Fatal(err)
	}
	return forged
}

// ForgedCA is an attacker's CA: tests use it to forge an Identity that
// points a consumer at another API server, its certificate issued for the
// consumer's real public key (which the attacker can read in the Tenant).
type ForgedCA struct {
	PEM  []byte
	cert *x509.Certificate
	key  ed25519.PrivateKey
}

// NewForgedCA makes a self-signed CA.
func NewForgedCA(t testing.TB) *ForgedCA {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "forged-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &ForgedCA{PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), cert: cert, key: key}
}

// Issue signs a client certificate for pub with common name cn, as Liqo's
// provider issues a consumer's (organization liqo.io).
func (ca *ForgedCA) Issue(t testing.TB, pub stdcrypto.PublicKey, cn string) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn, Organization: []string{"liqo.io"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, pub, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

package crypto

import (
	"bytes"
	stdcrypto "crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
)

// liqoOrganization is the CSR organization: it becomes the certificate's
// group, which the provider's RBAC grants rights to (§5.4).
const liqoOrganization = "liqo.io"

const pemTypeCSR = "CERTIFICATE REQUEST"

// NewCSR builds the control-plane CSR of the Tenant (§5.4): PKCS#10 signed by
// the cluster key, subject O=liqo.io then CN=<clusterID>, no extensions, as
// one PEM block ending in a single newline. For Ed25519 keys the output is
// deterministic, which matters because the provider caches the certificate
// keyed on the exact CSR bytes.
func NewCSR(k stdcrypto.Signer, clusterID string) ([]byte, error) {
	if err := ValidateClusterID(clusterID); err != nil {
		return nil, err
	}
	return newLiqoCSR(k, clusterID)
}

// NewUserCSR builds the CSR of a human user of a Liqo cluster, such as the
// peering user (§9.4): like NewCSR (O=liqo.io, one PEM block), with the
// user's name as CN, which may be longer than a cluster ID.
func NewUserCSR(k stdcrypto.Signer, userName string) ([]byte, error) {
	if userName == "" {
		return nil, fmt.Errorf("creating CSR: empty user name")
	}
	return newLiqoCSR(k, userName)
}

// newLiqoCSR is a CSR of k with subject O=liqo.io, CN=commonName.
func newLiqoCSR(k stdcrypto.Signer, commonName string) ([]byte, error) {
	if _, err := signerPublicKey(k); err != nil {
		return nil, fmt.Errorf("creating CSR: %w", err)
	}
	// Go's name encoder emits O before CN, the order Liqo produces; the
	// signature algorithm is Go's default for the key (Ed25519, SHA256WithRSA,
	// ECDSA with SHA-256/384/512 by curve size), as in Liqo.
	template := &x509.CertificateRequest{
		Subject: pkix.Name{
			Organization: []string{liqoOrganization},
			CommonName:   commonName,
		},
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, template, k)
	if err != nil {
		return nil, fmt.Errorf("creating CSR: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypeCSR, Bytes: der}), nil
}

// ParseCSR parses a PEM "CERTIFICATE REQUEST" strictly: exactly one block,
// nothing after it but one line ending (Liqo's provider rejects trailing
// data), and a key type we support. Errors start with "invalid CSR: ".
func ParseCSR(csrPEM []byte) (*x509.CertificateRequest, error) {
	der, err := decodeSinglePEM(csrPEM, pemTypeCSR)
	if err != nil {
		return nil, fmt.Errorf("invalid CSR: %w", err)
	}
	csr, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return nil, fmt.Errorf("invalid CSR: %w", err)
	}
	switch csr.PublicKey.(type) {
	case ed25519.PublicKey, *rsa.PublicKey, *ecdsa.PublicKey:
	default:
		return nil, fmt.Errorf("invalid CSR: unsupported key type %s (want Ed25519, RSA or ECDSA)", csr.PublicKeyAlgorithm)
	}
	return csr, nil
}

// CheckCSR runs the provider's checks on a Tenant CSR (§6.2 step 5), in
// Liqo's order and with Liqo's words, then also verifies the CSR
// self-signature, which Liqo leaves to the Kubernetes API server.
func CheckCSR(csrPEM []byte, clusterID string, pub stdcrypto.PublicKey) error {
	csr, err := ParseCSR(csrPEM)
	if err != nil {
		return err // already says "invalid CSR"
	}
	if csr.Subject.CommonName != clusterID {
		return fmt.Errorf("invalid common name: CSR is for %q, want %q", csr.Subject.CommonName, clusterID)
	}
	// Liqo indexes the first organization without a length check (and would
	// panic); we report the missing organization instead.
	if len(csr.Subject.Organization) == 0 {
		return fmt.Errorf("invalid organization: CSR has no organization, want %q", liqoOrganization)
	}
	if org := csr.Subject.Organization[0]; org != liqoOrganization {
		return fmt.Errorf("invalid organization: CSR organization is %q, want %q", org, liqoOrganization)
	}
	if err := checkCSRKey(csr.PublicKey, pub); err != nil {
		return fmt.Errorf("invalid public key: %w", err)
	}
	if err := csr.CheckSignature(); err != nil {
		return fmt.Errorf("invalid CSR: bad self-signature: %w", err)
	}
	return nil
}

// checkCSRKey compares the CSR key with the expected one on their PKIX DER,
// as Liqo does; fingerprints only make the error readable.
func checkCSRKey(csrKey, want stdcrypto.PublicKey) error {
	wantDER, err := PublicKeyDER(want)
	if err != nil {
		return fmt.Errorf("expected key: %w", err)
	}
	gotDER, err := PublicKeyDER(csrKey)
	if err != nil {
		return fmt.Errorf("CSR key: %w", err)
	}
	if !bytes.Equal(gotDER, wantDER) {
		return fmt.Errorf("the CSR key (%s %s) is not the expected key (%s %s)",
			KeyAlgorithm(csrKey), fingerprintDER(gotDER), KeyAlgorithm(want), fingerprintDER(wantDER))
	}
	return nil
}

package crypto

import (
	stdcrypto "crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
)

// sliceUserHashBytes is how much of SHA-256(consumerID) a slice user name
// carries (§10.1): 6 bytes, 12 lowercase hex characters.
const sliceUserHashBytes = 6

// ConsumerHash is the first 6 bytes of SHA-256(consumerID) as 12 lowercase
// hex characters: the suffix that makes a slice's user name unique per
// consumer on a provider (§10.1).
func ConsumerHash(consumerID string) string {
	sum := sha256.Sum256([]byte(consumerID))
	return hex.EncodeToString(sum[:sliceUserHashBytes])
}

// ResourceSliceCommonName is the CN of a ResourceSlice CSR, hence the
// Kubernetes user of its certificate: <slice>-<ConsumerHash(consumerID)>.
func ResourceSliceCommonName(sliceName, consumerID string) string {
	return sliceName + "-" + ConsumerHash(consumerID)
}

// NewResourceSliceCSR builds the CSR a consumer puts in a ResourceSlice
// (§10.1): PKCS#10 signed by the cluster key, subject O=<consumerID> then
// CN=<slice>-<hash>, no extensions, one PEM block ending in a single
// newline, like the control-plane CSR (§5.4). The certificate's user is in
// the group <consumerID>, which the provider's cluster-wide binding names.
func NewResourceSliceCSR(k stdcrypto.Signer, sliceName, consumerID string) ([]byte, error) {
	if sliceName == "" {
		return nil, errors.New("creating ResourceSlice CSR: empty slice name")
	}
	if err := ValidateClusterID(consumerID); err != nil {
		return nil, fmt.Errorf("creating ResourceSlice CSR: %w", err)
	}
	if _, err := signerPublicKey(k); err != nil {
		return nil, fmt.Errorf("creating ResourceSlice CSR: %w", err)
	}
	template := &x509.CertificateRequest{Subject: pkix.Name{
		Organization: []string{consumerID},
		CommonName:   ResourceSliceCommonName(sliceName, consumerID),
	}}
	der, err := x509.CreateCertificateRequest(rand.Reader, template, k)
	if err != nil {
		return nil, fmt.Errorf("creating ResourceSlice CSR: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypeCSR, Bytes: der}), nil
}

// CheckResourceSliceCSR runs the provider's checks on a ResourceSlice CSR
// (§10.1): strict PEM, CN <slice>-<hash>, first O the consumer ID, and,
// when pub is not nil (the Tenant's key; nil with TolerateNoHandshake), the
// CSR key equal to it; then the self-signature. The errors start with
// Liqo's words (invalid CSR, invalid common name, invalid organization,
// invalid public key).
func CheckResourceSliceCSR(csrPEM []byte, sliceName, consumerID string, pub stdcrypto.PublicKey) error {
	csr, err := ParseCSR(csrPEM)
	if err != nil {
		return err
	}
	if want := ResourceSliceCommonName(sliceName, consumerID); csr.Subject.CommonName != want {
		return fmt.Errorf("invalid common name: CSR is for %q, want %q (slice %s of consumer %s)", csr.Subject.CommonName, want, sliceName, consumerID)
	}
	if len(csr.Subject.Organization) == 0 {
		return fmt.Errorf("invalid organization: CSR has no organization, want %q", consumerID)
	}
	if org := csr.Subject.Organization[0]; org != consumerID {
		return fmt.Errorf("invalid organization: CSR organization is %q, want %q", org, consumerID)
	}
	if pub != nil {
		if err := checkCSRKey(csr.PublicKey, pub); err != nil {
			return fmt.Errorf("invalid public key: %w", err)
		}
	}
	if err := csr.CheckSignature(); err != nil {
		return fmt.Errorf("invalid CSR: bad self-signature: %w", err)
	}
	return nil
}

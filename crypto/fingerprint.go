package crypto

import (
	stdcrypto "crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
)

// fingerprintPrefix follows ssh-keygen -l, a format admins already compare.
const fingerprintPrefix = "SHA256:"

// Fingerprint returns "SHA256:" and the unpadded base64 SHA-256 of the PKIX
// DER of pub, for humans to compare keys out of band.
func Fingerprint(pub stdcrypto.PublicKey) (string, error) {
	der, err := PublicKeyDER(pub)
	if err != nil {
		return "", err
	}
	return fingerprintDER(der), nil
}

// CertificateFingerprint returns the fingerprint (same form as Fingerprint)
// of the DER of the first CERTIFICATE block in certPEM. A CA bundle may hold
// several certificates and other blocks: only the first certificate counts.
func CertificateFingerprint(certPEM []byte) (string, error) {
	rest := certPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return "", errNoCertificate
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		// Parse to refuse fingerprinting bytes that are not a certificate.
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return "", fmt.Errorf("invalid certificate: %w", err)
		}
		return fingerprintDER(block.Bytes), nil
	}
}

func fingerprintDER(der []byte) string {
	sum := sha256.Sum256(der)
	return fingerprintPrefix + base64.RawStdEncoding.EncodeToString(sum[:])
}

var errNoCertificate = errors.New("no CERTIFICATE PEM block found")

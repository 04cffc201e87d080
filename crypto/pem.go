package crypto

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

var pemBegin = []byte("-----BEGIN ")

// decodeSinglePEM returns the DER body of data, which must be exactly one PEM
// block of type wantType followed by at most one line ending.
//
// encoding/pem alone is too lenient for us: it skips text before the block
// and malformed blocks, and leaves trailing data to the caller. Liqo's
// provider rejects CSRs with trailing data (§5.4), and being strict everywhere
// gives users a precise error instead of a silently ignored paste mistake.
func decodeSinglePEM(data []byte, wantType string) ([]byte, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		if bytes.Contains(data, pemBegin) {
			return nil, errors.New("no PEM block found: the data contains a malformed PEM block")
		}
		return nil, errors.New("no PEM block found")
	}
	if !bytes.HasPrefix(data, pemBegin) {
		return nil, errors.New("unexpected data before PEM block")
	}
	// pem.Decode skips a malformed block and returns the next valid one: if
	// the consumed part holds more than one BEGIN line, the first was broken.
	if bytes.Count(data[:len(data)-len(rest)], pemBegin) > 1 {
		return nil, errors.New("malformed PEM block")
	}
	if block.Type != wantType {
		return nil, fmt.Errorf("unexpected PEM block type %q, want %s%s", block.Type, wantType, blockTypeHint(block.Type))
	}
	if len(block.Headers) > 0 {
		if _, ok := block.Headers["Proc-Type"]; ok {
			return nil, errors.New("unexpected PEM headers: encrypted PEM is not supported")
		}
		return nil, errors.New("unexpected PEM headers")
	}
	if len(rest) > 0 {
		if next, _ := pem.Decode(rest); next != nil {
			return nil, fmt.Errorf("trailing data after PEM block: a second PEM block (%q)", next.Type)
		}
		if len(rest) == 1 {
			return nil, fmt.Errorf("trailing data after PEM block: 1 extra byte (%q)", rest)
		}
		return nil, fmt.Errorf("trailing data after PEM block: %d extra bytes", len(rest))
	}
	return block.Bytes, nil
}

// blockTypeHint explains how to fix the block types people most often paste
// by mistake.
func blockTypeHint(got string) string {
	switch got {
	case "RSA PRIVATE KEY", "EC PRIVATE KEY":
		return " (legacy format: convert it with `openssl pkcs8 -topk8 -nocrypt`)"
	case "ENCRYPTED PRIVATE KEY":
		return " (encrypted keys are not supported)"
	case "RSA PUBLIC KEY":
		return " (PKCS#1 format: convert it with `openssl rsa -RSAPublicKey_in -pubout`)"
	default:
		return ""
	}
}

// ParseCertificatePEM parses the first certificate of a PEM chain (a
// signedCRT may carry intermediates after it).
func ParseCertificatePEM(certPEM []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(certPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM CERTIFICATE block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("unable to parse the certificate: %w", err)
	}
	return cert, nil
}

package crypto

import (
	stdcrypto "crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// KeyType is the algorithm of a cluster key pair that we can generate.
type KeyType string

const (
	// KeyEd25519 is Liqo's default cluster key.
	KeyEd25519 KeyType = "ed25519"
	// KeyRSA is a 2048-bit RSA key, used by Liqo's TLS-compatibility mode.
	KeyRSA KeyType = "rsa"
)

// rsaKeyBits matches Liqo's TLS-compatibility mode (§1.2).
const rsaKeyBits = 2048

// PEM block types of the authentication-keys Secret (§1.2).
const (
	pemTypePrivateKey = "PRIVATE KEY"
	pemTypePublicKey  = "PUBLIC KEY"
)

// ParseKeyType parses a user-supplied key type name.
func ParseKeyType(s string) (KeyType, error) {
	switch KeyType(s) {
	case KeyEd25519, KeyRSA:
		return KeyType(s), nil
	default:
		return "", fmt.Errorf("unknown key type %q: allowed values are %q and %q", s, KeyEd25519, KeyRSA)
	}
}

// KeyTypeOf is the KeyType of pub; ok is false for a key we never
// generate (ECDSA) or do not know.
func KeyTypeOf(pub stdcrypto.PublicKey) (t KeyType, ok bool) {
	switch pub.(type) {
	case ed25519.PublicKey:
		return KeyEd25519, true
	case *rsa.PublicKey:
		return KeyRSA, true
	}
	return "", false
}

// GenerateKey generates a new cluster key pair of type t.
func GenerateKey(t KeyType) (stdcrypto.Signer, error) {
	switch t {
	case KeyEd25519:
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating Ed25519 key: %w", err)
		}
		return priv, nil
	case KeyRSA:
		priv, err := rsa.GenerateKey(rand.Reader, rsaKeyBits)
		if err != nil {
			return nil, fmt.Errorf("generating RSA key: %w", err)
		}
		return priv, nil
	default:
		return nil, fmt.Errorf("unknown key type %q: allowed values are %q and %q", string(t), KeyEd25519, KeyRSA)
	}
}

// EncodePrivateKeyPEM encodes k the way Liqo stores it in the
// authentication-keys Secret: PEM "PRIVATE KEY" around PKCS#8 DER.
func EncodePrivateKeyPEM(k stdcrypto.Signer) ([]byte, error) {
	if _, err := signerPublicKey(k); err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("encoding private key as PKCS#8: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypePrivateKey, Bytes: der}), nil
}

// EncodePublicKeyPEM encodes pub as PEM "PUBLIC KEY" around PKIX DER, the
// form of the Secret's publicKey and of Tenant.spec.publicKey (v1.0.2+).
func EncodePublicKeyPEM(pub stdcrypto.PublicKey) ([]byte, error) {
	der, err := PublicKeyDER(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypePublicKey, Bytes: der}), nil
}

// ParsePrivateKeyPEM parses a single PEM "PRIVATE KEY" (PKCS#8) block holding
// an Ed25519, RSA or ECDSA key.
func ParsePrivateKeyPEM(pemBytes []byte) (stdcrypto.Signer, error) {
	der, err := decodeSinglePEM(pemBytes, pemTypePrivateKey)
	if err != nil {
		return nil, fmt.Errorf("invalid private key: %w", err)
	}
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("invalid private key: not a PKCS#8 private key: %w", err)
	}
	switch k := key.(type) {
	case ed25519.PrivateKey:
		return k, nil
	case *rsa.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		return k, nil
	default:
		return nil, fmt.Errorf("invalid private key: unsupported key type %T (want Ed25519, RSA or ECDSA)", key)
	}
}

// ParsePublicKey parses a Tenant public key the way Liqo's provider does
// (§6.2 step 3): PEM PKIX if the bytes hold a PEM block, otherwise the legacy
// raw 32-byte Ed25519 key sent by v1.0.0–v1.0.1 consumers.
func ParsePublicKey(b []byte) (stdcrypto.PublicKey, error) {
	if block, _ := pem.Decode(b); block != nil {
		return ParsePublicKeyPEM(b)
	}
	if len(b) == ed25519.PublicKeySize {
		// Copy: the caller may reuse its buffer.
		return ed25519.PublicKey(append([]byte(nil), b...)), nil
	}
	return nil, fmt.Errorf("invalid public key format: %d bytes that are neither a PEM PUBLIC KEY block nor a raw %d-byte Ed25519 key",
		len(b), ed25519.PublicKeySize)
}

// ParseRenewPublicKey parses the public key of a Renew (§10.2). Liqo
// v1.0–v1.1 consumers put the bare PKIX DER there (not PEM, unlike the
// Tenant's); PEM and the legacy raw Ed25519 key are taken as ParsePublicKey
// takes them.
func ParseRenewPublicKey(b []byte) (stdcrypto.PublicKey, error) {
	if block, _ := pem.Decode(b); block != nil || len(b) == ed25519.PublicKeySize {
		return ParsePublicKey(b)
	}
	pub, err := x509.ParsePKIXPublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("invalid public key format: %d bytes that are neither PKIX DER, a PEM PUBLIC KEY block nor a raw %d-byte Ed25519 key",
			len(b), ed25519.PublicKeySize)
	}
	if err := checkPublicKey(pub); err != nil {
		return nil, fmt.Errorf("invalid public key: %w", err)
	}
	return pub, nil
}

// ParsePublicKeyPEM parses a single PEM "PUBLIC KEY" (PKIX) block holding an
// Ed25519, RSA or ECDSA key.
func ParsePublicKeyPEM(pemBytes []byte) (stdcrypto.PublicKey, error) {
	der, err := decodeSinglePEM(pemBytes, pemTypePublicKey)
	if err != nil {
		return nil, fmt.Errorf("invalid public key: %w", err)
	}
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("invalid public key: not a PKIX public key: %w", err)
	}
	if err := checkPublicKey(pub); err != nil {
		return nil, fmt.Errorf("invalid public key: %w", err)
	}
	return pub, nil
}

// PublicKeyDER returns the PKIX (SubjectPublicKeyInfo) DER of pub. Liqo
// compares keys on these bytes (§6.2 step 5).
func PublicKeyDER(pub stdcrypto.PublicKey) ([]byte, error) {
	if err := checkPublicKey(pub); err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encoding public key as PKIX: %w", err)
	}
	return der, nil
}

// KeyAlgorithm names the algorithm of pub for humans, e.g. "Ed25519",
// "RSA-2048" or "ECDSA-P256".
func KeyAlgorithm(pub stdcrypto.PublicKey) string {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		return "Ed25519"
	case *rsa.PublicKey:
		if k == nil || k.N == nil {
			return "RSA"
		}
		return fmt.Sprintf("RSA-%d", k.N.BitLen())
	case *ecdsa.PublicKey:
		if k == nil || k.Curve == nil || k.Curve.Params() == nil {
			return "ECDSA"
		}
		return "ECDSA-" + strings.ReplaceAll(k.Curve.Params().Name, "-", "")
	case nil:
		return "none"
	default:
		return fmt.Sprintf("unsupported (%T)", pub)
	}
}

// SamePublicKey reports whether a and b are the same key, comparing their
// PKIX DER like Liqo does. Keys that cannot be encoded are never equal.
func SamePublicKey(a, b stdcrypto.PublicKey) bool {
	derA, err := PublicKeyDER(a)
	if err != nil {
		return false
	}
	derB, err := PublicKeyDER(b)
	if err != nil {
		return false
	}
	return string(derA) == string(derB)
}

// CertificateForKey tells whether the PEM certificate is for the PEM public
// key; err when either cannot be read.
func CertificateForKey(certPEM, keyPEM []byte) (bool, error) {
	cert, err := ParseCertificatePEM(certPEM)
	if err != nil {
		return false, err
	}
	key, err := ParsePublicKeyPEM(keyPEM)
	if err != nil {
		return false, err
	}
	return SamePublicKey(cert.PublicKey, key), nil
}

// checkPublicKey rejects key types and malformed values that the standard
// library would refuse later, or panic on (nil pointers, short Ed25519 keys).
func checkPublicKey(pub stdcrypto.PublicKey) error {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return fmt.Errorf("invalid Ed25519 public key length: %d bytes, want %d", len(k), ed25519.PublicKeySize)
		}
	case *rsa.PublicKey:
		if k == nil || k.N == nil || k.N.Sign() <= 0 {
			return errors.New("RSA public key has no modulus")
		}
	case *ecdsa.PublicKey:
		if k == nil || k.Curve == nil || k.X == nil || k.Y == nil {
			return errors.New("ECDSA public key is incomplete")
		}
	case nil:
		return errors.New("no public key given")
	default:
		return fmt.Errorf("unsupported key type %T (want Ed25519, RSA or ECDSA)", pub)
	}
	return nil
}

// signerPublicKey returns the checked public half of k. It guards against
// malformed Ed25519 private keys, whose Public method panics.
func signerPublicKey(k stdcrypto.Signer) (stdcrypto.PublicKey, error) {
	switch priv := k.(type) {
	case nil:
		return nil, errors.New("no private key given")
	case ed25519.PrivateKey:
		if len(priv) != ed25519.PrivateKeySize {
			return nil, fmt.Errorf("invalid Ed25519 private key length: %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
		}
	case *rsa.PrivateKey:
		if priv == nil {
			return nil, errors.New("no private key given")
		}
	case *ecdsa.PrivateKey:
		if priv == nil {
			return nil, errors.New("no private key given")
		}
	}
	pub := k.Public()
	if err := checkPublicKey(pub); err != nil {
		return nil, err
	}
	return pub, nil
}

package crypto

import (
	stdcrypto "crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
)

// SignNonce signs the nonce bytes (the ASCII nonce string, never its decoded
// form) as Liqo does (§4.1): pure Ed25519, RSA PKCS#1 v1.5 over SHA-256, or
// ASN.1 ECDSA over SHA-256 whatever the curve.
func SignNonce(k stdcrypto.Signer, nonce []byte) ([]byte, error) {
	pub, err := signerPublicKey(k)
	if err != nil {
		return nil, fmt.Errorf("signing nonce: %w", err)
	}
	if len(nonce) == 0 {
		return nil, errors.New("signing nonce: refusing to sign an empty nonce")
	}
	var sig []byte
	switch pub.(type) {
	case ed25519.PublicKey:
		// Hash(0) selects pure Ed25519: the message is signed unhashed.
		sig, err = k.Sign(rand.Reader, nonce, stdcrypto.Hash(0))
	case *rsa.PublicKey, *ecdsa.PublicKey:
		// With plain crypto.SHA256 opts (not *rsa.PSSOptions) an RSA signer
		// produces PKCS#1 v1.5; an ECDSA signer produces ASN.1 DER.
		digest := sha256.Sum256(nonce)
		sig, err = k.Sign(rand.Reader, digest[:], stdcrypto.SHA256)
	}
	if err != nil {
		return nil, fmt.Errorf("signing nonce with %s key: %w", KeyAlgorithm(pub), err)
	}
	return sig, nil
}

// VerifyNonce checks a signature made by SignNonce (or by Liqo's nonce
// signer). Every error starts with "signature verification failed: ".
func VerifyNonce(pub stdcrypto.PublicKey, nonce, signature []byte) error {
	if err := verifyNonce(pub, nonce, signature); err != nil {
		return fmt.Errorf("signature verification failed: %w", err)
	}
	return nil
}

func verifyNonce(pub stdcrypto.PublicKey, nonce, signature []byte) error {
	if err := checkPublicKey(pub); err != nil {
		return err
	}
	if len(nonce) == 0 {
		return errors.New("empty nonce")
	}
	if len(signature) == 0 {
		return errors.New("empty signature")
	}
	switch k := pub.(type) {
	case ed25519.PublicKey:
		if len(signature) != ed25519.SignatureSize {
			return fmt.Errorf("Ed25519 signature is %d bytes, want %d", len(signature), ed25519.SignatureSize)
		}
		if !ed25519.Verify(k, nonce, signature) {
			return errors.New("Ed25519 signature does not match the nonce and public key")
		}
	case *rsa.PublicKey:
		digest := sha256.Sum256(nonce)
		if err := rsa.VerifyPKCS1v15(k, stdcrypto.SHA256, digest[:], signature); err != nil {
			if errors.Is(err, rsa.ErrVerification) {
				return errors.New("RSA signature does not match the nonce and public key")
			}
			return fmt.Errorf("RSA: %w", err)
		}
	case *ecdsa.PublicKey:
		digest := sha256.Sum256(nonce)
		if !ecdsa.VerifyASN1(k, digest[:], signature) {
			return errors.New("ECDSA signature does not match the nonce and public key")
		}
	}
	return nil
}

package realliqo0x

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
)

// writeAuthServerPair writes a TLS pair shaped like the one Liqo's chart
// makes for the auth server at every pod start (init container cert-creator:
// `openssl req -x509 -subj /C=IT/ST=Turin/O=Liqo -nodes -days 365 -newkey
// rsa:4096`): self-signed, that subject, no SAN, so that clients meet what a
// real 0.x provider serves (verification can only be skipped). The key is
// RSA 2048 to keep tests fast; its size changes nothing on the wire.
// Returns the paths and the certificate PEM.
func writeAuthServerPair(dir string) (certPath, keyPath string, certPEM []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return "", "", nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{Country: []string{"IT"}, Province: []string{"Turin"}, Organization: []string{"Liqo"}},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.AddDate(0, 0, 365),
		// openssl req -x509 makes a CA certificate.
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", nil, err
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, certPEM, 0o600); err != nil {
		return "", "", nil, err
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", nil, err
	}
	return certPath, keyPath, certPEM, nil
}

// writeWebhookPair writes the controller-manager's webhook serving pair where
// controller-runtime looks for it, $TMPDIR/k8s-webhook-server/serving-certs
// (the chart mounts a Secret there), and returns the TMPDIR to give it.
func writeWebhookPair(dir string) (tmpDir string, err error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", nil, nil)
	if err != nil {
		return "", fmt.Errorf("generating the webhook pair: %w", err)
	}
	certs := filepath.Join(dir, "k8s-webhook-server", "serving-certs")
	if err := os.MkdirAll(certs, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(certs, "tls.crt"), certPEM, 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(certs, "tls.key"), keyPEM, 0o600); err != nil {
		return "", err
	}
	return dir, nil
}

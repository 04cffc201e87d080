package lab

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Names envtest gives the files of an API server's CertDir: when
// apiserver.crt is there already, envtest writes none of them.
const (
	servingCertFile = "apiserver.crt"
	servingKeyFile  = "apiserver.key"
	saSignerCert    = "sa-signer.crt"
	saSignerKey     = "sa-signer.key"
)

// kubernetesServiceIP is the first address of envtest's
// service-cluster-ip-range (10.0.0.0/24): the `kubernetes` Service, which
// Pods' in-cluster config dials.
const kubernetesServiceIP = "10.0.0.1"

// writeNodeServingCerts fills certDir for an API server that Pods and a
// Node reach: a serving certificate from the lab's CA for loopback, the
// Node's address and the `kubernetes` Service (envtest's own covers
// loopback only), and a service-account signing key. It returns the CA
// Pods and clients verify the server with.
func (c *clientCA) writeNodeServingCerts(certDir string, nodeIP string) ([]byte, error) {
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.ParseIP(nodeIP), net.ParseIP(kubernetesServiceIP)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &key.PublicKey, c.key)
	if err != nil {
		return nil, fmt.Errorf("signing the API server's serving certificate: %w", err)
	}
	if err := writePEM(filepath.Join(certDir, servingCertFile), "CERTIFICATE", der); err != nil {
		return nil, err
	}
	if err := writeECKey(filepath.Join(certDir, servingKeyFile), key); err != nil {
		return nil, err
	}
	sa, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := writePEM(filepath.Join(certDir, saSignerCert), "PUBLIC KEY", pub); err != nil {
		return nil, err
	}
	if err := writeECKey(filepath.Join(certDir, saSignerKey), sa); err != nil {
		return nil, err
	}
	return c.certPEM(), nil
}

func (c *clientCA) certPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.cert.Raw})
}

func writePEM(path, blockType string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), 0o600)
}

func writeECKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "EC PRIVATE KEY", der)
}

package kube

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// pinDialTimeout bounds reading a server's certificate for a pin.
const pinDialTimeout = 5 * time.Second

// ServerCertificateFingerprint is the fingerprint of the certificate an
// https server presents (its leaf, not verified: the pin is the check).
func ServerCertificateFingerprint(ctx context.Context, serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a URL", serverURL)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	ctx, cancel := context.WithTimeout(ctx, pinDialTimeout)
	defer cancel()
	// Verification is off on purpose: the fingerprint is compared instead.
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, ServerName: u.Hostname()}} //nolint:gosec
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return "", errors.New("the server presented no certificate")
	}
	return authcrypto.CertificateFingerprint(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certs[0].Raw}))
}

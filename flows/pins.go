package flows

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
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// pinDialTimeout bounds reading a server's certificate for a pin.
const pinDialTimeout = 5 * time.Second

// checkIdentityPin refuses an Identity that is not the pinned provider's
// (pin "" = no pin): its CA, or, without one (a publicly trusted API
// server), the certificate its API server presents.
func checkIdentityPin(ctx context.Context, id *authv1beta1.Identity, pin string) error {
	if pin == "" || len(id.Spec.AuthParams.CA) > 0 {
		return artifact.CheckIdentityCAPin(id, pin)
	}
	server := id.Spec.AuthParams.APIServer
	got, err := ServerCertificateFingerprint(ctx, server)
	if err != nil {
		return fmt.Errorf("--provider-fingerprint: this Identity carries no CA, so the pin is checked against the certificate of its API server %s, which could not be read from here (%w): run the command where it is reachable", server, err)
	}
	return artifact.CheckServerPin("this Identity points at an API server ("+server+") whose certificate is not the provider's", pin, got)
}

// checkAuthServerPin refuses a Liqo 0.x peer info whose auth server does
// not present the pinned certificate (pin "" = no pin).
func checkAuthServerPin(ctx context.Context, authURL, pin string) error {
	if pin == "" {
		return nil
	}
	got, err := ServerCertificateFingerprint(ctx, authURL)
	if err != nil {
		return fmt.Errorf("--provider-fingerprint: the certificate of the auth server %s could not be read from here (%w): run the command where it is reachable", authURL, err)
	}
	return artifact.CheckServerPin("this peer info points at an auth server ("+authURL+") whose certificate is not the provider's", pin, got)
}

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

// IdentityPin is what pins the provider of an Identity, as the consumer's
// --provider-fingerprint checks it: its CA, or without one its API
// server's certificate ("" when that cannot be read from here); what names it.
func IdentityPin(ctx context.Context, id *authv1beta1.Identity) (pin, what string) {
	if len(id.Spec.AuthParams.CA) > 0 {
		pin, _ = artifact.IdentityCAFingerprint(id)
		return pin, "provider CA"
	}
	pin, _ = ServerCertificateFingerprint(ctx, id.Spec.AuthParams.APIServer)
	return pin, "API server certificate"
}

// ProviderPin is what a consumer pins cluster c (probed as info) with as a
// provider, the --provider-fingerprint that checkIdentityPin checks: the CA
// its Identities carry, else its API server's certificate. A Liqo 0.x
// provider is pinned by its auth server's certificate instead, which
// `generate peer-info` prints (checkAuthServerPin). "" when it cannot be
// told.
func ProviderPin(ctx context.Context, c *Cluster, info *ClusterInfo) string {
	if info.ClusterID == "" || info.Restricted || RunsLiqo0x(info.LiqoRelease) {
		return ""
	}
	adv, err := Advertised(ctx, c, EngineOptions{})
	if err != nil {
		return ""
	}
	if adv.CAFingerprint != "" {
		return adv.CAFingerprint
	}
	pin, _ := ServerCertificateFingerprint(ctx, adv.APIServer)
	return pin
}

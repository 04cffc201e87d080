package doctor

import (
	"context"
	"crypto/x509"
	"fmt"
	"time"

	"k8s.io/client-go/rest"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// unauthorizedCheck says why the provider refuses the certificate (401):
// expired, signed by another CA than the one the provider trusts now, or
// valid and still refused (revoked).
func unauthorizedCheck(ctx context.Context, d *run, p *pair, cfg *rest.Config) Check {
	cause := "the provider refuses the kubeconfig's certificate (401): " + refusedCertificateReason(ctx, d, p, cfg.CertData)
	c := failed(acceptedID, "kubeconfig accepted by the provider", cause, reauthenticationFix(p, false))
	c.Repair = reauthenticateRepair(p)
	return c
}

// refusedCertificateReason tells a refused certificate's likely cause.
func refusedCertificateReason(ctx context.Context, d *run, p *pair, certPEM []byte) string {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return "its client certificate is unreadable: " + err.Error()
	}
	if !d.now.Before(cert.NotAfter) {
		return "the certificate expired at " + handshake.TimeText(cert.NotAfter)
	}
	if !p.provider.read() {
		return "the certificate is valid until " + handshake.TimeText(cert.NotAfter) +
			" yet refused: signed by a CA the provider no longer trusts (rotated?) or revoked; --remote-kubeconfig tells which"
	}
	trusted, err := clientCAVerifies(ctx, p.provider.cluster, cert, d.now)
	switch {
	case err != nil:
		return "the certificate is valid until " + handshake.TimeText(cert.NotAfter) + " yet refused (the provider's client CA could not be read: " + err.Error() + ")"
	case !trusted:
		return fmt.Sprintf("the certificate was signed by %q, not by the CA the provider trusts now: wrong CA, or the provider's CA was rotated", cert.Issuer.CommonName)
	}
	return "the certificate is valid until " + handshake.TimeText(cert.NotAfter) + " and signed by the provider's CA, yet refused: revoked"
}

// The ConfigMap where kube-apiserver publishes the CA bundle it trusts for
// client certificates.
const (
	clientCAConfigMapNamespace = "kube-system"
	clientCAConfigMap          = "extension-apiserver-authentication"
	clientCAKey                = "client-ca-file"
)

// clientCAVerifies tells whether cert chains to a CA the provider's API
// server trusts for client certificates now.
func clientCAVerifies(ctx context.Context, provider *kube.Cluster, cert *x509.Certificate, now time.Time) (bool, error) {
	cm, err := provider.ConfigMap(ctx, clientCAConfigMapNamespace, clientCAConfigMap)
	if err != nil {
		return false, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(cm.Data[clientCAKey])) {
		return false, fmt.Errorf("ConfigMap %s/%s holds no %s", clientCAConfigMapNamespace, clientCAConfigMap, clientCAKey)
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return err == nil, nil
}

package doctor

import (
	"context"
	"crypto/x509"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// Liqo 0.x's traps (../shared/liqo-legacy-auth.md): authentication
// disabled on the provider, an identity lost while the ForeignCluster still
// says Established, a token the provider re-created, one identity per
// cluster ID; and the plain state: the consumer's identity and its
// certificate, the provider's issued certificate matching it.
// The checks are in liqo0x_*.go; this file gathers each side's
// objects of a 0.x peering.

// The checks' IDs.
const (
	checkLiqo0xAuthentication = "liqo0x-authentication-enabled"
	checkLiqo0xIdentity       = "liqo0x-identity"
	checkLiqo0xToken          = "liqo0x-token"
	checkLiqo0xOneIdentity    = "liqo0x-one-identity"
	checkLiqo0xRequest        = "liqo0x-identity-request"
	checkLiqo0xIssued         = "liqo0x-issued-certificate"
)

// checkLiqo0x checks a Liqo 0.x peering, on the sides that were read.
func checkLiqo0x(ctx context.Context, d *run, p *pair) []Check {
	if p.row.Generation != handshake.GenerationLiqo0x || p.row.Role == handshake.RoleUnknown {
		return nil
	}
	var out []Check
	add := func(c *Check, scope handshake.Scope) {
		if c != nil {
			c.Scope = scope
			out = append(out, *c)
		}
	}
	add(p.liqo0xAuthenticationCheck(ctx, d), p.provider.scope) // the provider's auth server
	if p.consumer.read() {
		identity := p.liqo0xIdentityCheck(d.now)
		add(identity, p.consumer.scope)
		if !p.lostWhileEstablished() { // else the identity check says it all
			for _, c := range p.liqo0xRefusalChecks(ctx) {
				add(&c, p.consumer.scope)
			}
		}
	}
	add(p.liqo0xIssuedCheck(), p.provider.scope)
	return out
}

// liqo0xObjects are what one side of a 0.x peering holds about the other.
type liqo0xObjects struct {
	// Consumer: Liqo's ForeignCluster and latest identity Secret, or this
	// tool's kubeconfig Secret. Provider: the certificate it issued.
	foreignCluster *unstructured.Unstructured
	identity       *corev1.Secret
	toolKubeconfig *corev1.Secret
	issued         *corev1.Secret
}

// liqo0xObjectsOf picks, from a cluster's lists, its 0.x objects about id.
func liqo0xObjectsOf(o *peerings.Objects, id string) *liqo0xObjects {
	s := &liqo0xObjects{}
	for _, fc := range o.ForeignClusters {
		if liqo0x.ForeignClusterID(fc) == id {
			peerings.FirstOf(&s.foreignCluster, fc)
		}
	}
	var identities []*corev1.Secret
	for _, sec := range o.Liqo0xSecrets {
		if sec.Labels[liqo0x.ClusterIDLabel] != id {
			continue
		}
		switch {
		case liqo0x.IsIdentitySecret(sec):
			identities = append(identities, sec)
		case liqo0x.IsIssuedCertificateSecret(sec):
			peerings.FirstOf(&s.issued, sec)
		}
	}
	s.identity = liqo0x.LatestIdentity(identities)
	for _, sec := range o.Secrets {
		if sec.Labels[kube.RemoteClusterIDLabel] == id && liqo0x.IsClientSecret(sec) && len(sec.Data[kube.KubeconfigField]) > 0 {
			peerings.FirstOf(&s.toolKubeconfig, sec)
		}
	}
	return s
}

// certificate is the consumer's identity certificate and the Secret that
// holds it; nil when it holds none (or it is unreadable).
func (s *liqo0xObjects) certificate() (*x509.Certificate, *corev1.Secret) {
	switch {
	case s.toolKubeconfig != nil:
		if cert, err := kubeconfig.ClientCertificate(s.toolKubeconfig.Data[kube.KubeconfigField]); err == nil {
			return cert, s.toolKubeconfig
		}
	case s.identity != nil:
		if cert, err := authcrypto.ParseCertificatePEM(liqo0x.IdentityCertificate(s.identity)); err == nil {
			return cert, s.identity
		}
	}
	return nil, nil
}

// issuedCertificate is the certificate the provider issued, nil when none.
func (s *liqo0xObjects) issuedCertificate() *x509.Certificate {
	if s.issued == nil {
		return nil
	}
	cert, err := authcrypto.ParseCertificatePEM(liqo0x.IssuedCertificate(s.issued))
	if err != nil {
		return nil
	}
	return cert
}

// established tells whether the consumer's ForeignCluster says
// authentication Established.
func (s *liqo0xObjects) established() bool {
	return s.foreignCluster != nil && liqo0x.AuthEstablished(liqo0x.ForeignClusterAuth(s.foreignCluster).Status)
}

// lostWhileEstablished: the consumer's Liqo says Established and holds no
// identity (Liqo v0.10 keeps Established when later requests fail).
func (p *pair) lostWhileEstablished() bool {
	cert, _ := p.consumer.liqo0x.certificate()
	return cert == nil && p.consumer.liqo0x.established()
}

// reissueCommand gets the consumer a new identity: this tool's 0.x flow,
// which first deletes on the provider the one it issued (--reissue).
func (p *pair) reissueCommand() string {
	return p.consumer.on("liqo-auth-tui authenticate --remote-kubeconfig <provider's kubeconfig> --reissue")
}

// deleteSecretCommand deletes a Secret of the consumer.
func (p *pair) deleteSecretCommand(s *corev1.Secret) string {
	return p.consumer.on("kubectl -n " + s.Namespace + " delete secret " + s.Name)
}

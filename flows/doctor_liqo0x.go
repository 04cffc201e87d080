package flows

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
// The checks are in doctor_liqo0x_*.go; this file gathers each side's
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
func checkLiqo0x(ctx context.Context, d *doctorRun, row handshake.Peering) []Check {
	if row.Generation != handshake.GenerationLiqo0x || row.Role == handshake.RoleUnknown {
		return nil
	}
	p := liqo0xPeeringOf(d, row)
	var out []Check
	add := func(c *Check, scope handshake.Scope) {
		if c != nil {
			c.Scope = scope
			out = append(out, *c)
		}
	}
	add(p.authenticationCheck(ctx, d), p.providerScope) // the provider's auth server
	if p.consumer != nil {
		identity := p.identityCheck(d.now)
		add(identity, p.consumerScope)
		if !p.lostWhileEstablished() { // else the identity check says it all
			for _, c := range p.refusalChecks(ctx) {
				add(&c, p.consumerScope)
			}
		}
	}
	add(p.issuedCheck(), p.providerScope)
	return out
}

// liqo0xPeering is a 0.x peering as doctor read it: a side is nil when
// its cluster was not read (no --remote-kubeconfig).
type liqo0xPeering struct {
	consumerID, providerID       string
	consumerScope, providerScope handshake.Scope
	consumer, provider           *liqo0xSide
}

// liqo0xSide is what one cluster holds about the other.
type liqo0xSide struct {
	cluster *Cluster
	objects *peerings.Objects
	// Consumer: Liqo's ForeignCluster and latest identity Secret, or this
	// tool's kubeconfig Secret. Provider: the certificate it issued.
	foreignCluster *unstructured.Unstructured
	identity       *corev1.Secret
	toolKubeconfig *corev1.Secret
	issued         *corev1.Secret
}

// liqo0xPeeringOf sorts the row's sides: this cluster plays the row's
// role, the remote (when read, and when the row is about it) the other.
func liqo0xPeeringOf(d *doctorRun, row handshake.Peering) liqo0xPeering {
	localID := d.localObjects.LocalID
	local := liqo0xSideOf(d.local, d.localObjects, row.RemoteID)
	var remote *liqo0xSide
	if d.remote != nil && d.remoteObjects != nil && d.remoteObjects.LocalID == row.RemoteID && localID != "" {
		remote = liqo0xSideOf(d.remote, d.remoteObjects, localID)
	}
	if row.Role == handshake.RoleConsumer {
		return liqo0xPeering{consumerID: localID, providerID: row.RemoteID, consumerScope: handshake.Local, providerScope: handshake.Remote,
			consumer: local, provider: remote}
	}
	return liqo0xPeering{consumerID: row.RemoteID, providerID: localID, consumerScope: handshake.Remote, providerScope: handshake.Local,
		consumer: remote, provider: local}
}

// liqo0xSideOf picks, from a cluster's lists, its 0.x objects about id.
func liqo0xSideOf(c *Cluster, o *peerings.Objects, id string) *liqo0xSide {
	s := &liqo0xSide{cluster: c, objects: o}
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
func (s *liqo0xSide) certificate() (*x509.Certificate, *corev1.Secret) {
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
func (s *liqo0xSide) issuedCertificate() *x509.Certificate {
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
func (s *liqo0xSide) established() bool {
	return s.foreignCluster != nil && liqo0x.AuthEstablished(liqo0x.ForeignClusterAuth(s.foreignCluster).Status)
}

// lostWhileEstablished: the consumer's Liqo says Established and holds no
// identity (Liqo v0.10 keeps Established when later requests fail).
func (p liqo0xPeering) lostWhileEstablished() bool {
	cert, _ := p.consumer.certificate()
	return cert == nil && p.consumer.established()
}

// reissueCommand gets the consumer a new identity: this tool's 0.x flow,
// which first deletes on the provider the one it issued (--reissue).
func (p liqo0xPeering) reissueCommand() string {
	return onConsumer(p.consumerScope, "liqo-auth-tui authenticate --remote-kubeconfig <provider's kubeconfig> --reissue")
}

// deleteSecretCommand deletes a Secret of the consumer.
func (p liqo0xPeering) deleteSecretCommand(s *corev1.Secret) string {
	return onConsumer(p.consumerScope, "kubectl -n "+s.Namespace+" delete secret "+s.Name)
}

package doctor

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// The consumer's side of a 0.x peering: its identity, and what its
// ForeignCluster says of the provider's answer.

// liqo0xIdentityCheck: the identity the consumer holds and its certificate's
// validity (Liqo 0.x never renews it), or the trap of a ForeignCluster
// that says Established while no identity Secret is left. nil while the
// consumer holds none and does not claim one.
func (p *pair) liqo0xIdentityCheck(now time.Time) *Check {
	const title = "Liqo 0.x identity"
	cert, secret := p.consumer.liqo0x.certificate()
	if cert == nil {
		if !p.consumer.liqo0x.established() {
			return nil
		}
		c := failed(checkLiqo0xIdentity, title, fmt.Sprintf(
			"ForeignCluster %s says authentication Established but this cluster holds no %s* Secret for %s: nothing can authenticate to the provider, "+
				"and Liqo's new requests are refused as the provider issues one identity per cluster ID: it must first delete Secret %s it issued to %s (--reissue does)",
			p.consumer.liqo0x.foreignCluster.GetName(), liqo0x.IdentitySecretPrefix, p.provider.id, kube.RemoteCertSecretName, p.consumer.id),
			p.reissueCommand())
		return &c
	}
	where := "Secret " + secret.Namespace + "/" + secret.Name
	renewal := kube.RenewalTime(cert.NotBefore, cert.NotAfter)
	var cause string
	switch {
	case !now.Before(cert.NotAfter):
		cause = fmt.Sprintf("the identity's certificate (%s) expired at %s", where, handshake.TimeText(cert.NotAfter))
	case !now.Before(renewal):
		cause = fmt.Sprintf("the identity's certificate (%s) expires at %s, past 2/3 of its validity", where, handshake.TimeText(cert.NotAfter))
	default:
		c := passed(checkLiqo0xIdentity, title, fmt.Sprintf("%s, certificate valid until %s", where, handshake.TimeText(cert.NotAfter)))
		return &c
	}
	c := failed(checkLiqo0xIdentity, title, cause+": Liqo 0.x never renews it; the provider issues a new one once the old one is deleted on both sides",
		p.deleteSecretCommand(secret)+" && "+p.reissueCommand())
	return &c
}

// liqo0xRefusalChecks read the provider's answer off the consumer's
// ForeignCluster: a token the provider no longer has, an identity it
// already issued for this cluster ID, or another refusal.
func (p *pair) liqo0xRefusalChecks(ctx context.Context) []Check {
	fc := p.consumer.liqo0x.foreignCluster
	if fc == nil {
		return nil // this tool was the consumer: it sent once and said the answer
	}
	status := liqo0x.ForeignClusterAuth(fc).Status
	refusal := liqo0x.On(p.consumer.cluster).ForeignClusterRefusal(ctx, fc, p.provider.id)
	said := func() string { return strings.Join(strings.Fields(liqo0x.RedactTokens(refusal.Message)), " ") }
	// Liqo reuses an identity it holds and never sends the token again.
	tokenDetail, oneDetail := "accepted (AuthenticationStatus "+status+")", "issued to this cluster (AuthenticationStatus "+status+")"
	if !liqo0x.AuthEstablished(status) {
		tokenDetail, oneDetail = "not refused (AuthenticationStatus "+cmp.Or(status, "none yet")+")", "not refused as already issued"
	}
	token := passed(checkLiqo0xToken, "Liqo 0.x token", tokenDetail)
	one := passed(checkLiqo0xOneIdentity, "one identity per cluster ID", oneDetail)
	var other *Check
	switch {
	case refusal == nil:
	case refusal.Refusal == liqo0x.WrongToken:
		token = failed(token.ID, token.Title, fmt.Sprintf(
			"the provider refused the token this cluster stores for it: its auth-token Secret was re-created since the peer info was copied (ForeignCluster %s: %s)",
			fc.GetName(), said()),
			p.provider.on("liqo-auth-tui generate peer-info --output-file peer-info")+" && "+
				p.consumer.on("liqo-auth-tui apply peer-info -f peer-info"))
	case refusal.Refusal == liqo0x.AlreadyIssued:
		one = failed(one.ID, one.Title, fmt.Sprintf(
			"the provider already issued the one identity of cluster ID %s (to this cluster before a re-install, or to another cluster with the same ID) and refuses another "+
				"until it deletes Secret %s in its tenant namespace (ForeignCluster %s: %s); if another cluster uses this ID, give one of them a new ID instead",
			p.consumer.id, kube.RemoteCertSecretName, fc.GetName(), cmp.Or(said(), status)),
			p.reissueCommand())
	default:
		c := failed(checkLiqo0xRequest, "Liqo 0.x identity request", refusal.Error(), "")
		other = &c
	}
	out := []Check{token, one}
	if other != nil {
		out = append(out, *other)
	}
	return out
}

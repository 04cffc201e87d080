package doctor

import (
	"context"
	"fmt"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// tenantCertificateKey: on the provider, the certificate in a Tenant's
// status against the key its spec (re-applied by the consumer) carries. A
// consumer re-installed with new keys under its cluster ID sends a new
// CSR; the provider's cache holds the old one's certificate and refuses it
// until the status certificate is due (then it signs the new CSR, as Liqo
// does), or at once once the cache Secret is gone.
func tenantCertificateKey(p *pair) (Check, bool) {
	const id, title = "tenant-certificate-key", "Tenant certificate for the consumer's key"
	po := p.provider.peer
	if po == nil || !p.provider.read() || po.Tenant == nil || po.Tenant.Status.AuthParams == nil || len(po.Tenant.Status.AuthParams.SignedCRT) == 0 {
		return Check{}, false
	}
	t := po.Tenant
	forKey, err := authcrypto.CertificateForKey(t.Status.AuthParams.SignedCRT, t.Spec.PublicKey)
	if err != nil {
		return Check{}, false // the certificate and Tenant checks say so
	}
	if forKey {
		fp := "?"
		if key, err := authcrypto.ParsePublicKeyPEM(t.Spec.PublicKey); err == nil {
			fp, _ = authcrypto.Fingerprint(key)
		}
		return passedIn(p.provider.scope, id, title, "key "+fp), true
	}
	when := "at its renewal"
	if at, err := kube.CertificateRenewalTime(t.Status.AuthParams.SignedCRT); err == nil {
		when = "at its renewal, " + at.UTC().Format("2006-01-02T15:04:05Z")
	}
	c := failed(id, title, fmt.Sprintf("Tenant %s/%s holds a certificate for another key than the one it now carries: consumer %s was re-installed with new keys under its cluster ID; "+
		"a liqo-auth-tui or Liqo v1.2+ provider signs the new CSR when the old certificate is due (%s; Liqo v1.0 and v1.1 never do), or at once once its certificate cache Secret %s/%s is deleted",
		t.Namespace, t.Name, p.consumer.name(), when, t.Namespace, kube.RemoteCertSecretName),
		p.provider.on("kubectl delete secret "+kube.RemoteCertSecretName+" -n "+t.Namespace)+" && "+bothSidesCommand("authenticate"))
	c.Scope = p.provider.scope
	if c.Repair = reauthenticateRepair(p); c.Repair == nil {
		c.Repair = &Repair{
			Plan: []string{fmt.Sprintf("delete Secret %s/%s on the provider %s (its cached certificate for consumer %s's old key): its controller then signs the Tenant's CSR",
				t.Namespace, kube.RemoteCertSecretName, p.provider.name(), p.consumer.name())},
			apply: func(ctx context.Context) error {
				if err := p.provider.cluster.DeleteSecret(ctx, t.Namespace, kube.RemoteCertSecretName); err != nil && !kube.IsNotFound(err) {
					return fmt.Errorf("deleting the provider's certificate cache %s/%s: %w", t.Namespace, kube.RemoteCertSecretName, err)
				}
				return nil
			},
		}
	}
	return c, true
}

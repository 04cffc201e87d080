package doctor

import (
	"context"
	"fmt"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
)

// consumerKey: the consumer's cluster key against the key its Tenant was
// signed with (both sides read), or against its kubeconfig's certificate
// (the consumer alone). A consumer reinstalled with new keys keeps its ID
// and gets refused, its certificate for the old key.
func consumerKey(ctx context.Context, p *pair) (Check, bool) {
	const id, title = "consumer-key", "consumer key unchanged"
	if !p.consumer.read() {
		return Check{}, false
	}
	var signed []byte // PEM of the key the Tenant or certificate is for
	var what string
	switch {
	case p.provider.peer != nil && p.provider.peer.Tenant != nil:
		signed, what = p.provider.peer.Tenant.Spec.PublicKey, "its Tenant on the provider was signed with"
	case p.consumer.peer.Kubeconfig != nil:
		cert, err := kubeconfig.ClientCertificate(p.consumer.peer.Kubeconfig.Data[kube.KubeconfigField])
		if err != nil {
			return Check{}, false
		}
		pem, err := authcrypto.EncodePublicKeyPEM(cert.PublicKey)
		if err != nil {
			return Check{}, false
		}
		signed, what = pem, "its kubeconfig's certificate is for"
	default:
		return Check{}, false
	}
	was, err := authcrypto.ParsePublicKeyPEM(signed)
	if err != nil {
		return Check{}, false
	}
	current, _, err := p.consumer.cluster.PublicKey(ctx)
	if err != nil {
		return Check{}, false // the keys themselves are the cluster checks'
	}
	nowFP, _ := authcrypto.Fingerprint(current)
	if authcrypto.SamePublicKey(was, current) {
		return passedIn(p.consumer.scope, id, title, "key "+nowFP), true
	}
	wasFP, _ := authcrypto.Fingerprint(was)
	c := failed(id, title, fmt.Sprintf("consumer %s's cluster key changed (now %s) since %s (%s): the provider's certificate is for the old key; re-authenticate",
		p.consumer.name(), nowFP, what, wasFP), reauthenticationFix(p, true))
	c.Scope = p.consumer.scope
	return c, true
}

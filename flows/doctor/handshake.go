package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// checkHandshakeObjects: the v1 handshake objects of a peering, on each
// side read: a handshake stuck at a step, a Tenant accepted for a consumer
// that has no Identity, an Identity without its kubeconfig Secret, and a
// consumer whose key changed since its Tenant was signed. Each failure
// says the next command; with both clusters read, doctor can finish the
// handshake itself as `authenticate` resumes it.
func checkHandshakeObjects(ctx context.Context, d *run, p *pair) []Check {
	if p.row.Generation != handshake.GenerationV1 || p.row.Role == handshake.RoleUnknown {
		return nil
	}
	out := []Check{handshakeProgress(ctx, d, p)}
	if c, ok := tenantIdentity(p); ok {
		out = append(out, c)
	}
	if c, ok := identityKubeconfig(ctx, d, p); ok {
		out = append(out, c)
	}
	if c, ok := consumerKey(ctx, p); ok {
		out = append(out, c)
	}
	if c, ok := tenantCertificateKey(p); ok {
		out = append(out, c)
	}
	return out
}

// The step commands of the manual handshake, each marked for the cluster
// it runs on.

// fromNonce: the nonce to the consumer, its Tenant back to the provider.
func (p *pair) fromNonce(verb string) string {
	return strings.Join([]string{
		p.provider.on("liqo-auth-tui "+verb+" nonce --remote-cluster-id "+p.consumer.name()) + " > nonce.txt",
		p.consumer.on("liqo-auth-tui generate tenant --remote-cluster-id " + p.provider.name() + " --nonce-file nonce.txt --output-file tenant.yaml"),
		p.provider.on("liqo-auth-tui apply tenant -f tenant.yaml"),
	}, " && ")
}

// sendIdentity: the provider's Identity to the consumer.
func (p *pair) sendIdentity() string {
	return p.provider.on("liqo-auth-tui generate identity --remote-cluster-id "+p.consumer.name()+" --output-file identity.yaml") +
		" && " + p.consumer.on("liqo-auth-tui apply identity -f identity.yaml")
}

// handshakeProgress: the handshake went past its last manual step, or is
// stuck at one (a nonce without Tenant, a Tenant not accepted, a signed
// nonce without Identity), as the overview's stage says; a pair
// unauthenticated is neither (what Liqo keeps is no fault).
func handshakeProgress(ctx context.Context, d *run, p *pair) Check {
	const id, title = "handshake-complete", "handshake finished"
	stuck := func(scope handshake.Scope, cause, fix string) Check {
		c := failed(id, title, cause, fix)
		c.Scope, c.Repair = scope, resumeHandshakeRepair(p)
		return c
	}
	if po := p.provider.peer; po != nil && p.provider.read() {
		t := po.Tenant
		switch stage := peerings.ProviderStageOf(po.Namespace != nil, t, po.Nonce); {
		case t != nil && t.DeletionTimestamp != nil:
			if c, stuck := d.terminatingTenant(ctx, p, t); stuck {
				return c
			}
			return passedIn(p.provider.scope, id, title, "the Tenant is being deleted")
		case t == nil && (po.Nonce == nil || peerings.UnauthenticatedProvider(po)) && p.consumer.peer != nil && (p.consumer.peer.Identity != nil || p.consumer.peer.Kubeconfig != nil):
			return stuck(p.provider.scope, "the provider has no Tenant for consumer "+p.consumer.name()+", which still holds an Identity for it: the pair is one-sided",
				bothSidesCommand("authenticate"))
		case peerings.UnauthenticatedProvider(po):
			// What unauthenticate leaves: nothing to fix (the consumer, when
			// read, has no Identity: the case above).
			return passedIn(p.provider.scope, id, title, "unauthenticated: the tenant namespaces stay, as Liqo keeps them; "+
				"`liqo-auth-tui authenticate` peers the pair again")
		case t != nil && !peerings.TenantAccepted(t):
			return stuck(p.provider.scope, "the Tenant of consumer "+p.consumer.name()+" waits for the provider's controller to accept it: "+
				d.tenantWaitReason(ctx, p), bothSidesCommand("authenticate"))
		case stage == handshake.StageCreateNonce:
			return stuck(p.provider.scope, "no valid nonce for consumer "+p.consumer.name()+": the provider's admin creates it, the consumer's signs it into a Tenant",
				p.fromNonce("create"))
		case stage == handshake.StageAwaitTenant:
			return stuck(p.provider.scope, "nonce created, no Tenant from consumer "+p.consumer.name()+": its admin signs the nonce and sends the Tenant",
				p.fromNonce("get"))
		}
		if !p.consumer.read() {
			return passedIn(p.provider.scope, id, title, "Tenant accepted; whether consumer "+p.consumer.name()+" applied its Identity shows with --remote-kubeconfig "+
				"(if not, its admin applies the one `liqo-auth-tui generate identity --remote-cluster-id "+p.consumer.name()+"` prints here)")
		}
		return passedIn(p.provider.scope, id, title, "Tenant accepted")
	}
	co := p.consumer.peer
	if co.Identity == nil && co.Kubeconfig == nil && co.SignedNonce != nil {
		return stuck(p.consumer.scope, "nonce signed, no Identity from provider "+p.provider.name()+": its admin applies the Tenant and sends the Identity", p.sendIdentity())
	}
	return passedIn(p.consumer.scope, id, title, p.row.Stage.Describe())
}

// tenantWaitReason says why a Tenant is not accepted: no controller on
// the provider, or the last Warning of the one that runs.
func (d *run) tenantWaitReason(ctx context.Context, p *pair) string {
	t := p.provider.peer.Tenant
	return d.controllerVerdict(ctx, p.provider, kube.ObjectRef{Kind: authv1beta1.TenantKind, Namespace: t.Namespace, Name: t.Name})
}

// tenantIdentity: a Tenant the provider accepted, and the consumer (read)
// has no Identity for it: its admin never applied the provider's.
func tenantIdentity(p *pair) (Check, bool) {
	const id, title = "tenant-identity", "Identity for the accepted Tenant"
	po, co := p.provider.peer, p.consumer.peer
	if po == nil || po.Tenant == nil || !peerings.TenantAccepted(po.Tenant) || co == nil || !p.consumer.read() {
		return Check{}, false
	}
	if co.Identity != nil || co.Kubeconfig != nil {
		return passedIn(p.consumer.scope, id, title, "Identity present on the consumer"), true
	}
	c := failed(id, title, "the provider accepted the Tenant of "+p.consumer.name()+", but the consumer has no Identity for provider "+p.provider.name()+
		": the consumer's admin applies the one the provider generates", p.sendIdentity())
	c.Scope, c.Repair = p.consumer.scope, resumeHandshakeRepair(p)
	return c, true
}

// identityKubeconfig: an Identity whose kubeconfig Secret was never
// written (or was deleted): no controller on the consumer, or it failed.
func identityKubeconfig(ctx context.Context, d *run, p *pair) (Check, bool) {
	const id, title = "identity-kubeconfig", "kubeconfig Secret of the Identity"
	co := p.consumer.peer
	if co == nil || co.Identity == nil || co.Identity.DeletionTimestamp != nil {
		return Check{}, false
	}
	i := co.Identity
	if s := co.Kubeconfig; s != nil {
		return passedIn(p.consumer.scope, id, title, "Secret "+s.Namespace+"/"+s.Name), true
	}
	why := d.controllerVerdict(ctx, p.consumer, kube.ObjectRef{Kind: authv1beta1.IdentityKind, Namespace: i.Namespace, Name: i.Name})
	c := failed(id, title, fmt.Sprintf("Identity %s/%s has no kubeconfig Secret: %s", i.Namespace, i.Name, why), p.sendIdentity())
	c.Scope, c.Repair = p.consumer.scope, resumeHandshakeRepair(p)
	return c, true
}

// passedIn is passed, on one side.
func passedIn(scope handshake.Scope, id, title, detail string) Check {
	c := passed(id, title, detail)
	c.Scope = scope
	return c
}

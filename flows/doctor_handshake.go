package flows

import (
	"context"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// checkHandshakeObjects: the v1 handshake objects of a peering, on each
// side read: a handshake stuck at a step, a Tenant accepted for a consumer
// that has no Identity, an Identity without its kubeconfig Secret, and a
// consumer whose key changed since its Tenant was signed. Each failure
// says the next command; with both clusters read, doctor can finish the
// handshake itself as `authenticate` resumes it.
func checkHandshakeObjects(ctx context.Context, d *doctorRun, row handshake.Peering) []Check {
	if row.Generation != handshake.GenerationV1 || row.Role == handshake.RoleUnknown {
		return nil
	}
	p := d.pairOf(row)
	out := []Check{handshakeProgress(ctx, d, row, p)}
	if c, ok := tenantIdentity(d, row, p); ok {
		out = append(out, c)
	}
	if c, ok := identityKubeconfig(ctx, d, row, p); ok {
		out = append(out, c)
	}
	if c, ok := consumerKey(ctx, p); ok {
		out = append(out, c)
	}
	return out
}

// handshakeCommands are the step commands of the manual handshake, each
// marked for the cluster it runs on.
type handshakeCommands struct{ p doctorPair }

func (h handshakeCommands) provider(cmd string) string { return onProvider(h.p.providerScope, cmd) }
func (h handshakeCommands) consumer(cmd string) string { return onConsumer(h.p.consumerScope, cmd) }

// fromNonce: the nonce to the consumer, its Tenant back to the provider.
func (h handshakeCommands) fromNonce(verb string) string {
	return strings.Join([]string{
		h.provider("liqo-auth-tui "+verb+" nonce --remote-cluster-id "+h.p.consumerID) + " > nonce.txt",
		h.consumer("liqo-auth-tui generate tenant --remote-cluster-id " + h.p.providerID + " --nonce-file nonce.txt --output-file tenant.yaml"),
		h.provider("liqo-auth-tui apply tenant -f tenant.yaml"),
	}, " && ")
}

// identity: the provider's Identity to the consumer.
func (h handshakeCommands) identity() string {
	return h.provider("liqo-auth-tui generate identity --remote-cluster-id "+h.p.consumerID+" --output-file identity.yaml") +
		" && " + h.consumer("liqo-auth-tui apply identity -f identity.yaml")
}

// handshakeProgress: the handshake went past its last manual step, or is
// stuck at one (a nonce without Tenant, a Tenant not accepted, a signed
// nonce without Identity), as the overview's stage says; a pair
// unauthenticated is neither (what Liqo keeps is no fault).
func handshakeProgress(ctx context.Context, d *doctorRun, row handshake.Peering, p doctorPair) Check {
	const id, title = "handshake-complete", "handshake finished"
	h := handshakeCommands{p}
	stuck := func(scope handshake.Scope, cause, fix string) Check {
		c := failed(id, title, cause, fix)
		c.Scope, c.Repair = scope, resumeHandshakeRepair(d, row)
		return c
	}
	if po := p.providerObjects; po != nil && p.provider != nil {
		t := po.Tenant
		switch stage := peerings.ProviderStageOf(po.Namespace != nil, t, po.Nonce); {
		case t != nil && t.DeletionTimestamp != nil:
			return passedIn(p.providerScope, id, title, "the Tenant is being deleted")
		case t == nil && (po.Nonce == nil || peerings.UnauthenticatedProvider(po)) && p.consumerObjects != nil && (p.consumerObjects.Identity != nil || p.consumerObjects.Kubeconfig != nil):
			return stuck(p.providerScope, "the provider has no Tenant for consumer "+p.consumerID+", which still holds an Identity for it: the pair is one-sided",
				bothSidesCommand("authenticate"))
		case peerings.UnauthenticatedProvider(po):
			// What unauthenticate leaves: nothing to fix (the consumer, when
			// read, has no Identity: the case above).
			return passedIn(p.providerScope, id, title, "unauthenticated: the tenant namespaces stay, as Liqo keeps them; "+
				"`liqo-auth-tui authenticate` peers the pair again")
		case t != nil && !peerings.TenantAccepted(t):
			return stuck(p.providerScope, "the Tenant of consumer "+p.consumerID+" waits for the provider's controller to accept it: "+
				tenantWaitReason(ctx, d, p), bothSidesCommand("authenticate"))
		case stage == handshake.StageCreateNonce:
			return stuck(p.providerScope, "no valid nonce for consumer "+p.consumerID+": the provider's admin creates it, the consumer's signs it into a Tenant",
				h.fromNonce("create"))
		case stage == handshake.StageAwaitTenant:
			return stuck(p.providerScope, "nonce created, no Tenant from consumer "+p.consumerID+": its admin signs the nonce and sends the Tenant",
				h.fromNonce("get"))
		}
		if p.consumer == nil {
			return passedIn(p.providerScope, id, title, "Tenant accepted; whether consumer "+p.consumerID+" applied its Identity shows with --remote-kubeconfig "+
				"(if not, its admin applies the one `liqo-auth-tui generate identity --remote-cluster-id "+p.consumerID+"` prints here)")
		}
		return passedIn(p.providerScope, id, title, "Tenant accepted")
	}
	co := p.consumerObjects
	if co.Identity == nil && co.Kubeconfig == nil && co.SignedNonce != nil {
		return stuck(p.consumerScope, "nonce signed, no Identity from provider "+p.providerID+": its admin applies the Tenant and sends the Identity", h.identity())
	}
	return passedIn(p.consumerScope, id, title, row.Stage.Describe())
}

// tenantWaitReason says why a Tenant is not accepted: no controller on
// the provider, or the last Warning of the one that runs.
func tenantWaitReason(ctx context.Context, d *doctorRun, p doctorPair) string {
	t := p.providerObjects.Tenant
	return controllerVerdict(ctx, d, p.provider, "provider", objectRef{Kind: authv1beta1.TenantKind, Namespace: t.Namespace, Name: t.Name})
}

// tenantIdentity: a Tenant the provider accepted, and the consumer (read)
// has no Identity for it: its admin never applied the provider's.
func tenantIdentity(d *doctorRun, row handshake.Peering, p doctorPair) (Check, bool) {
	const id, title = "tenant-identity", "Identity for the accepted Tenant"
	po, co := p.providerObjects, p.consumerObjects
	if po == nil || po.Tenant == nil || !peerings.TenantAccepted(po.Tenant) || co == nil || p.consumer == nil {
		return Check{}, false
	}
	if co.Identity != nil || co.Kubeconfig != nil {
		return passedIn(p.consumerScope, id, title, "Identity present on the consumer"), true
	}
	c := failed(id, title, "the provider accepted the Tenant of "+p.consumerID+", but the consumer has no Identity for provider "+p.providerID+
		": the consumer's admin applies the one the provider generates", handshakeCommands{p}.identity())
	c.Scope, c.Repair = p.consumerScope, resumeHandshakeRepair(d, row)
	return c, true
}

// identityKubeconfig: an Identity whose kubeconfig Secret was never
// written (or was deleted): no controller on the consumer, or it failed.
func identityKubeconfig(ctx context.Context, d *doctorRun, row handshake.Peering, p doctorPair) (Check, bool) {
	const id, title = "identity-kubeconfig", "kubeconfig Secret of the Identity"
	co := p.consumerObjects
	if co == nil || co.Identity == nil || co.Identity.DeletionTimestamp != nil {
		return Check{}, false
	}
	i := co.Identity
	if s := co.Kubeconfig; s != nil {
		return passedIn(p.consumerScope, id, title, "Secret "+s.Namespace+"/"+s.Name), true
	}
	why := controllerVerdict(ctx, d, p.consumer, "consumer", objectRef{Kind: authv1beta1.IdentityKind, Namespace: i.Namespace, Name: i.Name})
	c := failed(id, title, fmt.Sprintf("Identity %s/%s has no kubeconfig Secret: %s", i.Namespace, i.Name, why), handshakeCommands{p}.identity())
	c.Scope, c.Repair = p.consumerScope, resumeHandshakeRepair(d, row)
	return c, true
}

// passedIn is passed, on one side.
func passedIn(scope handshake.Scope, id, title, detail string) Check {
	c := passed(id, title, detail)
	c.Scope = scope
	return c
}

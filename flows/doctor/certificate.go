package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

const certificateCheckID, certificateCheckTitle = "certificate-renewal", "certificate and its renewal"

// checkCertificate: the consumer's control-plane certificate (else, with
// only the provider read, the Tenant's) expired, or is past its renewal
// point and not renewed, and why no renewal comes: who must act depends on
// the releases (protocol spec §10.2): a Liqo v1.2 provider, or this
// tool's, renews and the consumer's replicator and renewer bring it back;
// a Liqo v1.0–v1.1 consumer asks and its provider answers with its
// certificate cache.
func checkCertificate(ctx context.Context, d *run, p *pair) []Check {
	if p.row.Generation != handshake.GenerationV1 || p.row.Role == handshake.RoleUnknown {
		return nil
	}
	consumer, provider := p.consumer, p.provider
	held, holder := datesOf(consumer.row), consumer
	if held.notAfter.IsZero() {
		held, holder = datesOf(provider.row), provider
	}
	if held.notAfter.IsZero() || held.notBefore.IsZero() {
		return nil // no certificate yet: the handshake checks say why
	}
	due := kube.RenewalTime(held.notBefore, held.notAfter)
	var c Check
	switch now := d.now; {
	case !now.Before(held.notAfter):
		why, _ := renewalBlocker(ctx, d, consumer, provider)
		c = failed(certificateCheckID, certificateCheckTitle,
			fmt.Sprintf("the certificate expired at %s (renewal was due %s): %s", handshake.TimeText(held.notAfter), handshake.TimeText(due), why),
			reauthenticateFix(p.row))
		c.Repair = reauthenticateRepair(p) // nil without both sides
	case !now.Before(held.late()):
		why, fix := renewalBlocker(ctx, d, consumer, provider)
		c = failed(certificateCheckID, certificateCheckTitle,
			fmt.Sprintf("renewal was due %s and has not happened; the certificate expires at %s: %s", handshake.TimeText(due), handshake.TimeText(held.notAfter), why), fix)
		if fix == reauthenticateFix(p.row) {
			c.Repair = reauthenticateRepair(p)
		}
	default:
		detail := fmt.Sprintf("valid until %s, renewal due %s", handshake.TimeText(held.notAfter), handshake.TimeText(due))
		if holder.role == handshake.RoleConsumer {
			detail += ", last renewal " + orNever(held.lastRenewal)
		}
		c = passed(certificateCheckID, certificateCheckTitle, detail)
	}
	c.Scope = holder.scope
	return []Check{c}
}

// certDates are a side's certificate validity and last renewal.
type certDates struct{ notBefore, notAfter, lastRenewal time.Time }

func datesOf(r *handshake.Peering) certDates {
	if r == nil {
		return certDates{}
	}
	return certDates{r.CertificateNotBefore, r.CertificateNotAfter, r.LastRenewal}
}

// late is when a renewal due at 2/3 of the validity is overdue: a provider
// that renews by itself does so by 2/3 + 1/15 at the latest (it looks
// again after 1.1 × the time left to the 2/3 point).
func (c certDates) late() time.Time {
	return kube.RenewalTime(c.notBefore, c.notAfter).Add(c.notAfter.Sub(c.notBefore) / 15)
}

func orNever(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return handshake.TimeText(t)
}

// reauthenticateFix re-authenticates the pair keeping its slices (doctor's
// Repair, with both clusters).
func reauthenticateFix(row handshake.Peering) string {
	return "liqo-auth-tui doctor --fix --remote-cluster-id " + row.RemoteID +
		" --remote-kubeconfig <" + string(row.Role.Other()) + "'s kubeconfig>"
}

// doctorFixOf is `doctor --fix` on this pair with both clusters, from
// the local side: re-authenticate, restore replication.
func doctorFixOf(consumer, provider *side) string {
	if consumer.scope == handshake.Remote {
		return reauthenticateFix(handshake.Peering{RemoteID: consumer.id, Role: handshake.RoleProvider})
	}
	return reauthenticateFix(handshake.Peering{RemoteID: provider.id, Role: handshake.RoleConsumer})
}

// renewalBlocker says why no renewed certificate reached the consumer,
// and the command that unblocks it.
func renewalBlocker(ctx context.Context, d *run, consumer, provider *side) (why, fix string) {
	held, issued := datesOf(consumer.row), datesOf(provider.row)
	if consumer.read() && provider.read() && !held.notAfter.IsZero() && issued.notAfter.After(held.notAfter) {
		return renewalNotBack(ctx, d, consumer, provider, issued)
	}
	return renewalNotMade(ctx, d, consumer, provider)
}

// renewalNotBack: the provider renewed the Tenant's certificate, and the
// consumer does not hold it.
func renewalNotBack(ctx context.Context, d *run, consumer, provider *side, issued certDates) (string, string) {
	renewed := "the provider renewed it (valid until " + handshake.TimeText(issued.notAfter) + ") but "
	cons := consumer.controllers(ctx)
	switch {
	case cons.consumerDriven():
		return renewed + "a Liqo " + cons.liqo + " consumer never applies a renewed control-plane certificate: re-authenticate",
			doctorFixOf(consumer, provider)
	case cons.notRunning():
		return renewed + consumer.noController() + " to bring it back", consumer.on(installController)
	}
	id := consumer.identity(provider.id)
	if id == nil {
		return renewed + "the consumer has no control-plane Identity for it", doctorFixOf(consumer, provider)
	}
	local := renewOf(consumer.objects, id.Namespace, id.Name, "")
	copied := renewOf(provider.objects, provider.tenantNamespace(consumer.id), id.Name, consumer.id)
	switch {
	case local == nil:
		return renewed + "the consumer has no Renew " + id.Namespace + "/" + id.Name + " to carry it back (its controller makes one)",
			consumer.on(installController)
	case copied == nil:
		why := renewed + "Renew " + local.Namespace + "/" + local.Name + " is not replicated to the provider"
		if e := consumer.latestWarning(ctx, authv1beta1.RenewKind, local.Namespace, local.Name, local.UID, controller.ReasonReplicationForbidden); e != nil {
			why += ": " + refusalText(e)
		}
		return why, replicationFix(d, consumer, provider)
	case !answers(copied, issued):
		if prov := provider.controllers(ctx); prov.notRunning() {
			return renewed + provider.noController() + " to answer Renew " + copied.Namespace + "/" + copied.Name, provider.on(installController)
		}
		return renewed + "has not answered Renew " + copied.Namespace + "/" + copied.Name + " with it",
			provider.on("kubectl get events -n " + copied.Namespace + " --field-selector involvedObject.kind=Renew,involvedObject.name=" + copied.Name)
	}
	return renewed + "the consumer has not applied the answer of Renew " + local.Namespace + "/" + local.Name,
		consumer.on("kubectl get events -n " + local.Namespace + " --field-selector involvedObject.kind=Identity,involvedObject.name=" + id.Name)
}

// renewalNotMade: nobody renewed the certificate (or the provider was not
// read).
func renewalNotMade(ctx context.Context, d *run, consumer, provider *side) (string, string) {
	cons, prov := consumer.controllers(ctx), provider.controllers(ctx)
	id := consumer.identity(provider.id)
	switch {
	case prov.consumerDriven():
		return notRenewingProvider(consumer, provider, cons, prov)
	case prov.notRunning():
		return provider.noController() + " to renew it", provider.on(installController)
	case prov.ours:
		ns := provider.tenantNamespace(consumer.id)
		return "the provider's controller runs and has not renewed it: its Events on the Tenant say why",
			provider.on("kubectl get events -n " + ns + " --field-selector involvedObject.kind=Tenant")
	case prov.liqo != "":
		return "Liqo " + prov.liqo + "'s controller-manager on the provider renews it by itself and has not",
			provider.on("kubectl rollout restart deployment/liqo-controller-manager -n " + provider.cluster.Namespace)
	case cons.consumerDriven():
		return "a Liqo " + cons.liqo + " consumer never applies a renewed control-plane certificate: re-authenticate",
			doctorFixOf(consumer, provider)
	case cons.notRunning():
		return consumer.noController() + " to bring a renewal back or ask for one", consumer.on(installController)
	}
	if consumer.read() && !provider.read() {
		if local := renewNotReplicated(ctx, consumer, id); local != "" {
			return local, replicationFix(d, consumer, provider)
		}
		// This tool's consumer asked, and got the same certificate back.
		if cons.ours && id != nil && consumer.latestWarning(ctx, authv1beta1.IdentityKind, id.Namespace, id.Name, id.UID, controller.ReasonCertificateNotRenewed) != nil {
			why, fix := notRenewingProvider(consumer, provider, cons, controllers{liqo: "v1.0–v1.1", old: true})
			return "the provider answers this consumer's asks with the same certificate: " + why + " (any other provider has nothing renewing it)", fix
		}
		return "the provider has not renewed it, or its renewal has not come back: read both clusters to see which",
			"liqo-auth-tui doctor --remote-cluster-id " + provider.id + " --remote-kubeconfig <provider's kubeconfig>"
	}
	return "the provider has not renewed it", ""
}

// notRenewingProvider: a Liqo v1.0–v1.1 provider answers a Renew with the
// certificate it cached when it first signed, until its administrator
// deletes that cache (liqotech/liqo#3173); only a consumer that asks and
// applies the answer (this tool's) then gets a new one.
func notRenewingProvider(consumer, provider *side, cons, prov controllers) (string, string) {
	ns := provider.tenantNamespace(consumer.id)
	why := "a Liqo " + prov.liqo + " provider renews only after its administrator deletes the certificate cache Secret " +
		ns + "/" + kube.RemoteCertSecretName + " (liqotech/liqo#3173)"
	deleteCache := provider.on("kubectl delete secret " + kube.RemoteCertSecretName + " -n " + ns)
	switch {
	case cons.consumerDriven():
		return why + ", and a Liqo " + cons.liqo + " consumer never applies a renewed control-plane certificate: re-authenticate",
			doctorFixOf(consumer, provider)
	case cons.notRunning():
		return why + ", and " + consumer.noController() + " to ask for it", consumer.on(installController) + " && " + deleteCache
	case !cons.ours && consumer.read():
		return why + ", and the consumer (not this tool's) does not ask for it: re-authenticate",
			doctorFixOf(consumer, provider)
	}
	return why, deleteCache
}

// renewNotReplicated: with only the consumer read, its Renew refused by
// the provider ("" when not).
func renewNotReplicated(ctx context.Context, consumer *side, id *authv1beta1.Identity) string {
	if id == nil {
		return ""
	}
	local := renewOf(consumer.objects, id.Namespace, id.Name, "")
	if local == nil {
		return ""
	}
	e := consumer.latestWarning(ctx, authv1beta1.RenewKind, local.Namespace, local.Name, local.UID, controller.ReasonReplicationForbidden)
	if e == nil {
		return ""
	}
	return "Renew " + local.Namespace + "/" + local.Name + " is not replicated to the provider: " + refusalText(e)
}

// renewOf finds a Renew by namespace and name; origin set: a copy
// replicated from that consumer.
func renewOf(o *peerings.Objects, namespace, name, origin string) *authv1beta1.Renew {
	if o == nil {
		return nil
	}
	for _, r := range o.Renews {
		if r.Namespace == namespace && r.Name == name && (origin == "" || r.Labels[kube.OriginIDLabel] == origin) {
			return r
		}
	}
	return nil
}

// answers: the Renew's status carries a certificate lasting as long as
// the provider's.
func answers(r *authv1beta1.Renew, issued certDates) bool {
	if r.Status.AuthParams == nil {
		return false
	}
	var got handshake.Peering
	peerings.SetCertificate(&got, r.Status.AuthParams.SignedCRT)
	return !got.CertificateNotAfter.Before(issued.notAfter)
}

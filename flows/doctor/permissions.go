package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// verifyTimeout bounds the access reviews of a kubeconfig that answered.
const verifyTimeout = 30 * time.Second

// permissionsCheck: what the consumer's kubeconfig (cfg, when read) may
// do in its tenant namespace ns on the provider, and which of the
// bindings the provider makes per Tenant (§6.5) are missing there (when
// the provider is read). A Drained Tenant has none by design.
func permissionsCheck(ctx context.Context, d *run, p *pair, cfg *rest.Config, ns string) (Check, bool) {
	const title = "kubeconfig permissions on the provider"
	var t *authv1beta1.Tenant
	if po := p.provider.peer; po != nil {
		t = po.Tenant
	}
	if t != nil && (!peerings.TenantAccepted(t) || t.Spec.TenantCondition == authv1beta1.TenantConditionDrained || t.DeletionTimestamp != nil) {
		return Check{}, false
	}
	var denied []string
	if cfg != nil {
		vctx, cancel := context.WithTimeout(ctx, verifyTimeout)
		v, err := access.Verify(vctx, cfg, ns, access.ControlPlane)
		cancel()
		if err != nil {
			return Check{}, false // it answered a moment ago: the reach checks say the rest
		}
		denied = deniedOfGranted(v, ns)
	}
	var missing []string
	if p.provider.read() && t != nil {
		var err error
		if missing, err = d.missingBindings(ctx, p.provider.cluster, t); err != nil {
			c := failed(permissionsID, title, "reading the consumer's bindings on the provider: "+err.Error(), p.provider.on("liqo-auth-tui init"))
			c.Scope = p.provider.scope
			return c, true
		}
	}
	if cfg == nil && (!p.provider.read() || t == nil) {
		return Check{}, false // neither side's view of it was read
	}
	if len(denied) == 0 && len(missing) == 0 {
		detail := "the bindings of consumer " + p.consumer.name() + " are in place"
		if cfg != nil {
			detail = "allowed what Liqo's remote-controlplane role grants in " + ns
		}
		return passedIn(p.provider.scope, permissionsID, title, detail), true
	}
	c := failed(permissionsID, title, permissionsCause(p, ns, denied, missing), bothSidesCommand("authenticate"))
	c.Scope = p.provider.scope
	if len(missing) > 0 {
		c.Repair = rebindRepair(p, t, missing)
	}
	return c, true
}

// permissionsCause names what is refused (403) and the binding that
// should grant it.
func permissionsCause(p *pair, ns string, denied, missing []string) string {
	refused := ""
	if len(denied) > 0 {
		refused = "the provider refuses " + denied[0]
		if len(denied) > 1 {
			refused += fmt.Sprintf(" (and %d more)", len(denied)-1)
		}
		refused += " to consumer " + p.consumer.name() + " (403)"
	}
	switch {
	case len(missing) > 0 && refused != "":
		return refused + ": missing on the provider: " + joinNames(missing)
	case len(missing) > 0:
		return "missing on the provider: " + joinNames(missing) + ": consumer " + p.consumer.name() + "'s kubeconfig is refused what they grant (403)"
	case !p.provider.read():
		return refused + ": the RoleBinding " + kube.RoleBindingName(kube.RemoteControlPlaneClusterRole) + " in " + ns + " on the provider should grant it"
	}
	return refused + ", though its bindings exist: the ClusterRole " + kube.RemoteControlPlaneClusterRole + " lacks the rule"
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// deniedOfGranted are the checks Liqo's remote-controlplane role grants
// in the tenant namespace that the provider denied.
func deniedOfGranted(v *handshake.Verification, ns string) []string {
	deniedSet := map[string]bool{}
	for _, s := range v.Denied {
		deniedSet[s] = true
	}
	var out []string
	for _, a := range access.ControlPlane {
		if grantedToConsumer(a) && deniedSet[a.String(ns)] {
			out = append(out, a.String(ns))
		}
	}
	return out
}

// grantedToConsumer: the accesses of checks the control-plane role grants.
func grantedToConsumer(a access.Check) bool {
	if a.Namespace != access.TenantNamespace {
		return false
	}
	switch a.Resource {
	case "resourceslices", "renews", "namespacemaps":
		return true
	}
	return false
}

// rebindRepair re-creates the consumer's bindings with the functions the
// provider's Tenant reconciler uses.
func rebindRepair(p *pair, t *authv1beta1.Tenant, missing []string) *Repair {
	var plan []string
	for _, m := range missing {
		plan = append(plan, "create "+m+" on the provider "+p.provider.name()+" (for consumer "+p.consumer.name()+")")
	}
	return &Repair{Plan: plan, apply: func(ctx context.Context) error {
		current, err := p.provider.cluster.Tenant(ctx, t.Namespace, t.Name)
		if err != nil {
			return fmt.Errorf("reading Tenant %s/%s: %w", t.Namespace, t.Name, err)
		}
		roles, err := p.provider.cluster.TenantRoles(ctx)
		if err != nil {
			return err
		}
		if _, err := p.provider.cluster.BindTenantNamespace(ctx, current, current.Status.TenantNamespace, roles.ControlPlane); err != nil {
			return err
		}
		_, err = p.provider.cluster.BindTenantClusterWide(ctx, current.Spec.ClusterID, roles.ClusterWide)
		return err
	}}
}

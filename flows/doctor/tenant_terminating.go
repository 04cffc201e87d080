package doctor

import (
	"context"
	"fmt"
	"slices"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// terminatingTenant: a Tenant deleted (liqoctl unauthenticate deletes it
// and does not wait) on a provider where no controller runs (served only
// by liqo-auth-tui in-process, or its controller uninstalled) stays
// Terminating on tenant.liqo.io/finalizer, and the consumer keeps its
// cluster-wide bindings until something does the controller's cleanup.
// With Liqo, its controller always runs and does it at once; doctor --fix
// does it here. ok is false when the Tenant is not in that state.
func (d *run) terminatingTenant(ctx context.Context, p *pair, t *authv1beta1.Tenant) (Check, bool) {
	if t.DeletionTimestamp == nil || !slices.Contains(t.Finalizers, kube.TenantFinalizer) {
		return Check{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*d.dialTimeout())
	defer cancel()
	if engine, err := serving.Detect(ctx, p.provider.cluster); err != nil || engine != "" {
		return Check{}, false // a controller there finalizes it
	}
	c := failed("tenant-terminating", "Tenant deletion",
		fmt.Sprintf("the Tenant of consumer %s has been Terminating since %s, held by finalizer %s, and no controller runs on the provider to remove it: "+
			"the consumer keeps its bindings there until it is removed", p.consumer.name(), handshake.TimeText(t.DeletionTimestamp.Time), kube.TenantFinalizer),
		"`liqo-auth-tui doctor --fix` does the controller's cleanup (its bindings, then the finalizer); "+
			"`liqo-auth-tui install controller` keeps one running for the next time")
	c.Scope = p.provider.scope
	provider, ns, name := p.provider.cluster, t.Namespace, t.Name
	c.Repair = &Repair{
		Plan: []string{fmt.Sprintf("on the provider %s, remove the bindings of consumer %s and finalizer %s from Tenant %s/%s, as its controller would",
			p.provider.name(), p.consumer.name(), kube.TenantFinalizer, ns, name)},
		apply: func(ctx context.Context) error { return flows.FinalizeDeletedTenant(ctx, provider, ns, name) },
	}
	return c, true
}

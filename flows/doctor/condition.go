package doctor

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// checkTenantCondition: a provider admin's cordon or drain stops the
// consumer from getting new resources (or any); the check says which,
// and the verb that undoes it, run on the provider.
func checkTenantCondition(_ context.Context, _ *run, p *pair) []Check {
	if p.row.Generation != handshake.GenerationV1 {
		return nil
	}
	_, tenant, condition := p.row.PairStates()
	if tenant == handshake.StateAbsent {
		return nil
	}
	const id, title = "tenant-condition", "Tenant condition"
	// The Tenant is the provider's, about the consumer: on the remote
	// cluster when this one is the consumer.
	consumerID := p.consumer.id
	var c Check
	switch authv1beta1.TenantCondition(condition) {
	case authv1beta1.TenantConditionCordoned:
		c = failed(id, title, "the provider cordoned the Tenant: the consumer keeps what it has and gets no new resources",
			p.provider.on("liqo-auth-tui uncordon tenant "+consumerID))
	case authv1beta1.TenantConditionDrained:
		c = failed(id, title, "the provider drained the Tenant: the consumer's bindings and ResourceSlices there are gone",
			p.provider.on("liqo-auth-tui activate tenant "+consumerID))
	default:
		c = passed(id, title, "Active")
	}
	c.Scope = p.provider.scope
	return []Check{c}
}

package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// checkTenantCondition: a provider admin's cordon or drain stops the
// consumer from getting new resources (or any); the check says which,
// and the verb that undoes it, run on the provider.
func checkTenantCondition(_ context.Context, d *doctorRun, row handshake.Peering) []Check {
	if row.Generation != handshake.GenerationV1 {
		return nil
	}
	_, tenant, condition := row.PairStates()
	if tenant == handshake.StateAbsent {
		return nil
	}
	const id, title = "tenant-condition", "Tenant condition"
	consumerID, scope := row.RemoteID, handshake.Local
	if row.Role == handshake.RoleConsumer {
		// The Tenant is the remote provider's, about this cluster.
		consumerID, scope = d.localObjects.LocalID, handshake.Remote
	}
	var c Check
	switch authv1beta1.TenantCondition(condition) {
	case authv1beta1.TenantConditionCordoned:
		c = failed(id, title, "the provider cordoned the Tenant: the consumer keeps what it has and gets no new resources",
			onProvider(scope, "liqo-auth-tui uncordon tenant "+consumerID))
	case authv1beta1.TenantConditionDrained:
		c = failed(id, title, "the provider drained the Tenant: the consumer's bindings and ResourceSlices there are gone",
			onProvider(scope, "liqo-auth-tui activate tenant "+consumerID))
	default:
		c = passed(id, title, "Active")
	}
	c.Scope = scope
	return []Check{c}
}

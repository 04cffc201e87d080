package flows

import "fmt"

// TenantMoveQuestion is what liqoctl asks before verb (cordon, uncordon,
// drain, activate) changes consumerID's Tenant, for a front-end that asks
// on its own before calling with ConfirmOptions.Yes; "" when liqoctl does
// not ask, or verb is not one of them.
func TenantMoveQuestion(verb, consumerID string) string {
	for _, m := range []tenantMove{cordonTenant, uncordonTenant, drainTenant, activateTenant} {
		if m.verb == verb && m.risk != "" {
			return destructiveQuestion(m.verb, fmt.Sprintf(m.risk, consumerID))
		}
	}
	return ""
}

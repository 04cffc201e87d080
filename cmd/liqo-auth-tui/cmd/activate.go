package cmd

import (
	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// newActivateCommand is `activate`, liqoctl's: undoes cordon and drain
// (helpers in cordon.go).
func newActivateCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "activate", Short: "Provider: make a cordoned or drained consumer (tenant) Active again", Args: cobra.NoArgs}
	cmd.AddCommand(newTenantVerbCommand(o, "activate", "Provider: activate a consumer's Tenant: it may use and negotiate resources again",
		`Sets the Tenant's spec.tenantCondition to Active, like liqoctl activate tenant (which
does not ask). After a drain the provider's controller binds the consumer's permissions
again, and the consumer's replicator makes its ResourceSlices here again. An Active
Tenant is left as it is.`,
		withoutConfirmation(flows.ActivateTenant)))
	return cmd
}

package cmd

import (
	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// newDrainCommand is `drain`, liqoctl's (helpers in cordon.go).
func newDrainCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "drain", Short: "Provider: take away what a consumer (tenant) may use", Args: cobra.NoArgs}
	cmd.AddCommand(newTenantVerbCommand(o, "drain", "Provider: drain a consumer's Tenant: its permissions and ResourceSlices here go",
		`Sets the Tenant's spec.tenantCondition to Drained, like liqoctl drain tenant. The
provider's controller then removes the consumer's RoleBindings and ClusterRoleBindings
and deletes the ResourceSlices and NamespaceMaps replicated from it; the Tenant and its
certificate stay, so activate brings the consumer back without a new handshake. Asks
first (--yes skips the question; without a terminal it is needed). A drained Tenant is
left as it is.`,
		flows.DrainTenant))
	return cmd
}

package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// newUncordonCommand is `uncordon`, liqoctl's: undoes cordon (cordon.go).
func newUncordonCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "uncordon", Short: "Provider: let a cordoned consumer (tenant) or ResourceSlice get new resources again", Args: cobra.NoArgs}
	cmd.AddCommand(
		newTenantVerbCommand(o, "uncordon", "Provider: uncordon a consumer's Tenant: it may negotiate new resources again",
			`Sets the Tenant's spec.tenantCondition from Cordoned to Active, like liqoctl uncordon
tenant (which does not ask). The provider's controller then takes liqo.io/cordon-tenant
off the consumer's ResourceSlices. An Active Tenant is left as it is; a drained one is
refused (activate it).`,
			withoutConfirmation(flows.UncordonTenant)),
		newSliceVerbCommand(o, "uncordon", "Provider: uncordon one ResourceSlice of a consumer (removes liqo.io/cordon)",
			`Removes the annotation liqo.io/cordon from the provider's copy of a consumer's
ResourceSlice, like liqoctl uncordon resourceslice. Asks first, as liqoctl does (--yes
skips the question; without a terminal it is needed).`,
			flows.UncordonResourceSlice))
	return cmd
}

// withoutConfirmation adapts a Tenant verb liqoctl does not ask about.
func withoutConfirmation(run func(ctx context.Context, provider *flows.Cluster, consumerID string, sink handshake.Sink) error) tenantVerb {
	return func(ctx context.Context, provider *flows.Cluster, consumerID string, _ flows.ConfirmOptions, sink handshake.Sink) error {
		return run(ctx, provider, consumerID, sink)
	}
}

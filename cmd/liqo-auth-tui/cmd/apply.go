package cmd

import "github.com/spf13/cobra"

// newApplyCommand is `apply`: validates and applies an artifact the other admin sent; its nouns are in their own files.
func newApplyCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "apply", Short: "Validate and apply an artifact (provider: tenant; consumer: identity, peer-info)", Args: cobra.NoArgs}
	cmd.AddCommand(newApplyTenantCommand(o), newApplyIdentityCommand(o), newApplyPeerInfoCommand(o))
	return cmd
}

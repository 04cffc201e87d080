package cmd

import "github.com/spf13/cobra"

// newGenerateCommand is `generate`: prints an artifact for the other admin; its nouns are in their own files.
func newGenerateCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "generate", Short: "Generate an artifact of the handshake (consumer: tenant; provider: identity, peering-user, peer-info)", Args: cobra.NoArgs}
	cmd.AddCommand(newGenerateTenantCommand(o), newGenerateIdentityCommand(o), newGeneratePeeringUserCommand(o), newGeneratePeerInfoCommand(o))
	return cmd
}

package cmd

import "github.com/spf13/cobra"

// newDeleteCommand is `delete`: removes what a generate or create command made; its nouns are in their own files.
func newDeleteCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "delete", Short: "Delete what a generate or create command made on this cluster (provider: peering-user; consumer: resourceslice)", Args: cobra.NoArgs}
	cmd.AddCommand(newDeletePeeringUserCommand(o), newDeleteResourceSliceCommand(o))
	return cmd
}

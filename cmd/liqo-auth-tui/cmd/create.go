package cmd

import "github.com/spf13/cobra"

// newCreateCommand is `create`: makes an object of the handshake on this cluster; its nouns are in their own files.
func newCreateCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "create", Short: "Create an object of the handshake (provider: nonce; consumer: resourceslice)", Args: cobra.NoArgs}
	cmd.AddCommand(newCreateNonceCommand(o), newCreateResourceSliceCommand(o))
	return cmd
}

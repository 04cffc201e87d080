package cmd

import "github.com/spf13/cobra"

// newGetCommand is `get`: reads an object of the handshake; its nouns are in their own files.
func newGetCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "get", Short: "Read an object of the handshake (provider: nonce, tenant; consumer: resourceslice)", Args: cobra.NoArgs}
	cmd.AddCommand(newGetNonceCommand(o), newGetTenantCommand(o), newGetResourceSliceCommand(o))
	return cmd
}

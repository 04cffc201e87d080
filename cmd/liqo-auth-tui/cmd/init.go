package cmd

import (
	"context"

	"github.com/spf13/cobra"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// InitOptions prepare a cluster without Liqo for the handshake.
type InitOptions struct {
	*Options
	ClusterID string
	KeyType   string
}

func newInitCommand(o *Options) *cobra.Command {
	opts := &InitOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Prepare a cluster without Liqo for the handshake (idempotent)",
		Long: `Creates what the handshake needs on a cluster without Liqo: the Liqo namespace,
the cluster-ID ConfigMap, the authentication-keys Secret, the authentication.liqo.io
CRDs, Liqo's ClusterRoles for consumers and its peering-user roles (for generate
peering-user). Existing objects are kept; the cluster ID and key pair never change. On a cluster with Liqo installed it changes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	cmd.Flags().StringVar(&opts.ClusterID, "cluster-id", "", "cluster ID to set (DNS-1123 label); default: generated")
	cmd.Flags().StringVar(&opts.KeyType, "key-type", string(authcrypto.KeyEd25519), "algorithm of a new cluster key pair: ed25519 or rsa")
	return cmd
}

// Run prepares the cluster and reports each object.
func (o *InitOptions) Run(ctx context.Context) error {
	keyType, err := authcrypto.ParseKeyType(o.KeyType)
	if err != nil {
		return &UsageError{Err: err}
	}
	if o.ClusterID != "" {
		if err := flows.ValidateClusterID(o.ClusterID); err != nil {
			return &UsageError{Err: err}
		}
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	c, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	_, err = flows.Init(ctx, c, flows.InitOptions{ClusterID: o.ClusterID, KeyType: keyType}, o.Printer.sink)
	return err
}

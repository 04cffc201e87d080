package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// GeneratePeeringUserOptions: provider side, make the restricted kubeconfig
// a consumer's admin runs the whole handshake with (§9.4).
type GeneratePeeringUserOptions struct {
	*Options
	ConsumerID        string
	OutputFile        string
	KeyType           string
	APIServerOverride string
	CAFile            string
}

func newGeneratePeeringUserCommand(o *Options) *cobra.Command {
	opts := &GeneratePeeringUserOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "peering-user",
		Short: "Provider: make a restricted kubeconfig (peering user) for a consumer's admin to authenticate with",
		Long: `Makes, on the provider, the peering user of a consumer, like liqoctl generate
peering-user: a new key pair and a client certificate (CN liqo-peer-user-<id>-<random>,
O liqo.io) bound in the consumer's tenant namespace and in the Liqo namespace to Liqo's
peering-user roles (installed by init), and prints its kubeconfig. The kubeconfig reaches
the provider at the address and CA a consumer's Identity gets (the controller's flags, else
a control-plane node's address on port 6443, else the provider kubeconfig's server). Its
key is RSA-2048 when the provider runs in Liqo's TLS compatibility mode, else Ed25519.
The consumer's admin then runs the whole handshake alone: liqo-auth-tui authenticate
--remote-kubeconfig <it>. The provider must run Liqo or the in-cluster controller. The
kubeconfig holds the user's private key: hand it over privately. Running it again makes a
new key and certificate, and the previous kubeconfig loses its permissions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addConsumerClusterIDFlag(cmd, &opts.ConsumerID)
	cmd.Flags().StringVar(&opts.OutputFile, "output-file", "", "write the kubeconfig to this file (mode 0600) instead of stdout")
	cmd.Flags().StringVar(&opts.KeyType, "key-type", flows.KeyTypeAuto, "algorithm of the user's key pair: ed25519, rsa, or auto (RSA-2048 when the provider runs in Liqo's TLS compatibility mode, else Ed25519, like liqoctl's --tls-compatibility-mode=auto)")
	cmd.Flags().StringVar(&opts.APIServerOverride, "api-server-override", "", "provider API server URL written in the kubeconfig (default: the one a consumer's Identity gets: the controller's flags, else a control-plane node's address on 6443, else the provider kubeconfig's server)")
	cmd.Flags().StringVar(&opts.CAFile, "ca-override-file", "", "provider CA bundle written in the kubeconfig (default: the one a consumer's Identity gets)")
	return cmd
}

// Run makes the peering user and writes its kubeconfig.
func (o *GeneratePeeringUserOptions) Run(ctx context.Context) error {
	if err := flows.ValidateClusterID(o.ConsumerID); err != nil {
		return usagef("--consumer-cluster-id: %v", err)
	}
	keyType, err := flows.ParsePeeringUserKeyType(o.KeyType)
	if err != nil {
		return usagef("--key-type: %v", err)
	}
	pu := flows.PeeringUserOptions{KeyType: keyType, APIServerOverride: o.APIServerOverride}
	if o.CAFile != "" {
		if pu.CAOverride, err = flows.ReadCABundle(o.CAFile); err != nil {
			return usagef("--ca-override-file: %v", err)
		}
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	user, err := flows.GeneratePeeringUser(ctx, provider, o.ConsumerID, pu, o.Printer.sink)
	if err != nil {
		return err
	}
	if err := o.writeSecret(o.OutputFile, user.Kubeconfig); err != nil {
		return err
	}
	o.Printer.Info(handshake.NoScope, "Hand the kubeconfig privately (it holds the user's private key) to the admin of consumer %s", o.ConsumerID)
	// The same next command as the wizard's hand-off shows.
	o.Printer.Info(handshake.NoScope, "%s", handshake.Handoff{Kind: handshake.KindPeeringUser, ReceiverID: o.ConsumerID,
		File: o.OutputFile, SenderNamespace: flows.NamespaceOf(provider)}.Line())
	return nil
}

// writeSecret writes a credential to path, readable by its owner only
// (also when the file existed), or to stdout when path is empty.
func (o *Options) writeSecret(path string, data []byte) error {
	if path == "" {
		_, err := o.Printer.Out.Write(data)
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// Before anything is written: the file may have existed with a wider mode.
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// DeletePeeringUserOptions: provider side, remove a consumer's peering user.
type DeletePeeringUserOptions struct {
	*Options
	ConsumerID string
}

func newDeletePeeringUserCommand(o *Options) *cobra.Command {
	opts := &DeletePeeringUserOptions{Options: o}
	peeringUser := &cobra.Command{
		Use:   "peering-user",
		Short: "Provider: remove a consumer's peering user (its RoleBindings and CSR object)",
		Long: `Removes the peering user of a consumer, like liqoctl delete peering-user: its RoleBindings
and its CertificateSigningRequest object. Its kubeconfig then may do nothing more on this
cluster; a client certificate cannot be revoked, so it still authenticates until it
expires. The tenant namespace and any peering made with it stay.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addConsumerClusterIDFlag(peeringUser, &opts.ConsumerID)
	return peeringUser
}

// Run deletes the peering user.
func (o *DeletePeeringUserOptions) Run(ctx context.Context) error {
	if err := flows.ValidateClusterID(o.ConsumerID); err != nil {
		return usagef("--consumer-cluster-id: %v", err)
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	_, err = flows.DeletePeeringUser(ctx, provider, o.ConsumerID, o.Printer.sink)
	return err
}

func addConsumerClusterIDFlag(cmd *cobra.Command, id *string) {
	cmd.Flags().StringVar(id, "consumer-cluster-id", "", "cluster ID of the consumer whose admin uses the peering user")
	_ = cmd.MarkFlagRequired("consumer-cluster-id")
}

package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// NonceOptions are the provider's nonce commands.
type NonceOptions struct {
	*Options
	ConsumerID  string
	StepTimeout time.Duration
	Engine      EngineFlags
}

func newCreateNonceCommand(o *Options) *cobra.Command {
	opts := &NonceOptions{Options: o}
	nonce := &cobra.Command{
		Use:   "nonce",
		Short: "Provider: create the nonce for a consumer and print it on stdout",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Create(cmd.Context()) },
	}
	addRemoteClusterIDFlag(nonce, &opts.ConsumerID, "consumer")
	addEngineFlags(nonce, &opts.Engine)
	nonce.Flags().DurationVar(&opts.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	return nonce
}

func newGetNonceCommand(o *Options) *cobra.Command {
	opts := &NonceOptions{Options: o}
	nonce := &cobra.Command{
		Use:   "nonce",
		Short: "Provider: print the nonce already created for a consumer",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Get(cmd.Context()) },
	}
	addRemoteClusterIDFlag(nonce, &opts.ConsumerID, "consumer")
	return nonce
}

// Create ensures the nonce and prints it.
func (o *NonceOptions) Create(ctx context.Context) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	return o.create(ctx, provider, false)
}

// create prints the nonce on stdout and the consumer's next command (the
// --batch one with batch) on stderr.
func (o *NonceOptions) create(ctx context.Context, provider *flows.Cluster, batch bool) error {
	engine, err := o.Engine.options()
	if err != nil {
		return err
	}
	nonce, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: provider, ConsumerID: o.ConsumerID, StepTimeout: o.StepTimeout, Engine: engine}, o.Printer.sink)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.Printer.Out, nonce)
	own, err := flows.ClusterID(ctx, provider)
	if err != nil {
		return err
	}
	o.Printer.Info(handshake.NoScope, "%s", handshake.Handoff{Kind: handshake.KindNonce, SenderID: own, ReceiverID: o.ConsumerID, Batch: batch}.Line())
	return nil
}

// Get prints the existing nonce.
func (o *NonceOptions) Get(ctx context.Context) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	nonce, err := flows.GetNonce(ctx, provider, o.ConsumerID)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.Printer.Out, nonce)
	return nil
}

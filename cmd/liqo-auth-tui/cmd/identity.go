package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// GenerateIdentityOptions: provider side, emit the Identity for a consumer.
type GenerateIdentityOptions struct {
	*Options
	ConsumerID            string
	RemoteTenantNamespace string
	OutputFile            string
	Output                string
}

func newGenerateIdentityCommand(o *Options) *cobra.Command {
	opts := &GenerateIdentityOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "identity",
		Short: "Provider: print the Identity to send to a consumer whose Tenant was accepted",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addRemoteClusterIDFlag(cmd, &opts.ConsumerID, "consumer")
	cmd.Flags().StringVar(&opts.RemoteTenantNamespace, "remote-tenant-namespace", "", "the consumer's tenant namespace for this provider (default liqo-tenant-<provider ID>)")
	cmd.Flags().StringVar(&opts.OutputFile, "output-file", "", "write the Identity to this file (mode 0600) instead of stdout")
	addOutputFlag(cmd, &opts.Output)
	return cmd
}

// Run generates the Identity.
func (o *GenerateIdentityOptions) Run(ctx context.Context) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	return o.generate(ctx, provider, false)
}

// generate writes the Identity and tells the consumer's next command (the
// --batch one with batch).
func (o *GenerateIdentityOptions) generate(ctx context.Context, provider *flows.Cluster, batch bool) error {
	if err := checkOutputFormat(o.Output, "", "yaml", "json"); err != nil {
		return err
	}
	gen, err := flows.GenerateIdentity(ctx, provider, o.ConsumerID, o.RemoteTenantNamespace, o.Printer.sink)
	if err != nil {
		return err
	}
	id := gen.Identity
	data, err := artifact.Encode(id, o.Output)
	if err != nil {
		return err
	}
	if err := o.writeArtifact(o.OutputFile, data); err != nil {
		return err
	}
	pin, what := flows.IdentityPin(ctx, id)
	if pin != "" {
		o.Printer.Info(handshake.NoScope, "Identity for consumer %s generated (%s %s, API server %s)", o.ConsumerID, what, pin, id.Spec.AuthParams.APIServer)
	}
	o.printCode(gen.Code, nil, handshake.KindIdentity, true)
	o.Printer.Info(handshake.NoScope, "%s", handshake.Handoff{Kind: handshake.KindIdentity, SenderID: id.Spec.ClusterID, ReceiverID: o.ConsumerID,
		File: o.OutputFile, Batch: batch, APIServer: id.Spec.AuthParams.APIServer, Pin: pin}.Line())
	return nil
}

// ApplyIdentityOptions: consumer side, validate and apply an Identity.
type ApplyIdentityOptions struct {
	*Options
	File        string
	Output      string
	StepTimeout time.Duration
	Engine      EngineFlags
	// ProviderFingerprint pins the provider's CA (`info` there shows it).
	ProviderFingerprint string
	// SkipPodReachCheck: see addPodReachFlag.
	SkipPodReachCheck bool
	// providerID, when set (--batch --remote-cluster-id), is the provider
	// the Identity must come from.
	providerID string
}

func newApplyIdentityCommand(o *Options) *cobra.Command {
	opts := &ApplyIdentityOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "identity",
		Short: "Consumer: validate the provider's Identity, apply it and wait for the kubeconfig Secret",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	cmd.Flags().StringVarP(&opts.File, "filename", "f", "", "file holding the Identity (- = stdin)")
	_ = cmd.MarkFlagRequired("filename")
	addProviderPinFlag(cmd.Flags(), &opts.ProviderFingerprint)
	addOutputFlag(cmd, &opts.Output)
	addEngineFlags(cmd, &opts.Engine)
	cmd.Flags().DurationVar(&opts.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	addPodReachFlag(cmd, &opts.SkipPodReachCheck)
	return cmd
}

// Run applies the Identity.
func (o *ApplyIdentityOptions) Run(ctx context.Context) error {
	if _, err := parsePin(providerPinFlag, o.ProviderFingerprint); err != nil {
		return err // a usage mistake, before dialing the cluster
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	return o.apply(ctx, consumer)
}

// apply validates and applies the Identity file and waits for the
// kubeconfig Secret.
func (o *ApplyIdentityOptions) apply(ctx context.Context, consumer *flows.Cluster) error {
	pin, err := parsePin(providerPinFlag, o.ProviderFingerprint)
	if err != nil {
		return err
	}
	engine, data, err := o.applyInput(o.Output, o.Engine, o.File, "Identity")
	if err != nil {
		return err
	}
	id, err := artifact.DecodeIdentity(data)
	if err != nil {
		return err
	}
	if o.providerID != "" && id.Spec.ClusterID != o.providerID {
		return fmt.Errorf("the Identity is from provider %s, not from --remote-cluster-id %s: pass the Identity of %s", id.Spec.ClusterID, o.providerID, o.providerID)
	}
	applied, err := flows.ApplyIdentity(ctx, flows.ConsumerOptions{Consumer: consumer, ProviderID: id.Spec.ClusterID, StepTimeout: o.StepTimeout, Engine: engine,
		ProviderFingerprint: pin, SkipPodReachCheck: o.SkipPodReachCheck}, id, o.Printer.sink)
	if err != nil {
		return err // a refusal is the one line: no code for what was not applied
	}
	code, err := flows.ConsumerIdentityCode(ctx, consumer, id)
	o.printCode(code, err, handshake.KindIdentity, false)
	if o.Output != "" {
		if err := o.printObject(o.Output, applied); err != nil {
			return err
		}
	}
	o.Printer.Info(handshake.NoScope, "Authenticated with provider %s: kubeconfig Secret %s/%s. Check it with: liqo-auth-tui verify --remote-cluster-id %s",
		id.Spec.ClusterID, applied.Namespace, applied.Status.KubeconfigSecretRef.Name, id.Spec.ClusterID)
	return nil
}

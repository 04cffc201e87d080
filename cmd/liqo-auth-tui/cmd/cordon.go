package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// newCordonCommand is `cordon`, liqoctl's: a Tenant or one ResourceSlice
// of a consumer gets no new resources. The other lifecycle verbs
// (uncordon, drain, activate) build on the helpers of this file.
func newCordonCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "cordon", Short: "Provider: give a consumer (tenant) or one of its ResourceSlices no new resources", Args: cobra.NoArgs}
	cmd.AddCommand(
		newTenantVerbCommand(o, "cordon", "Provider: cordon a consumer's Tenant: it keeps its resources and gets no new ones",
			`Sets the Tenant's spec.tenantCondition from Active to Cordoned, like liqoctl cordon
tenant. The provider's controller then denies resources to the consumer's new
ResourceSlices and marks all of them liqo.io/cordon-tenant; what was granted stays.
Asks first (--yes skips the question; without a terminal it is needed). A cordoned
Tenant is left as it is; a drained one is refused (activate it first).`,
			flows.CordonTenant),
		newSliceVerbCommand(o, "cordon", "Provider: cordon one ResourceSlice of a consumer (annotation liqo.io/cordon)",
			`Sets the annotation liqo.io/cordon on the provider's copy of a consumer's ResourceSlice,
in the consumer's tenant namespace, like liqoctl cordon resourceslice. Liqo's offloading
then admits no new pods through that slice; the authentication module does not read it.
Asks first (--yes skips the question; without a terminal it is needed).`,
			flows.CordonResourceSlice))
	return cmd
}

// tenantVerb is one of flows' Tenant verbs.
type tenantVerb func(ctx context.Context, provider *flows.Cluster, consumerID string, o flows.ConfirmOptions, sink handshake.Sink) error

// sliceVerb is one of flows' ResourceSlice verbs.
type sliceVerb func(ctx context.Context, provider *flows.Cluster, name, consumerID string, o flows.ConfirmOptions, sink handshake.Sink) error

// VerbOptions: provider side, one of liqoctl's lifecycle verbs on a
// consumer's Tenant (§5.5) or on one of its slices (§10.1).
type VerbOptions struct {
	*Options
	Arg        string // the Tenant (the consumer's ID) or the slice
	ConsumerID string // the slice's consumer (--remote-cluster-id)
	Yes        bool
	verb       string
	check      func() error
	run        func(ctx context.Context, provider *flows.Cluster, confirm flows.ConfirmOptions) error
}

// newVerbCommand builds `<verb> <noun> ARG`; the caller sets check and run.
func newVerbCommand(o *Options, verb, use string, aliases []string, short, long, example string) (*cobra.Command, *VerbOptions) {
	opts := &VerbOptions{Options: o, verb: verb}
	cmd := &cobra.Command{
		Use:     use,
		Aliases: aliases,
		Short:   short,
		Long:    long,
		Example: "  liqo-auth-tui " + verb + " " + example,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Arg = args[0]
			return opts.Run(cmd.Context())
		},
	}
	addYesFlags(cmd, &opts.Yes)
	return cmd, opts
}

// newTenantVerbCommand builds `<verb> tenant CONSUMER_ID`.
func newTenantVerbCommand(o *Options, verb, short, long string, run tenantVerb) *cobra.Command {
	cmd, opts := newVerbCommand(o, verb, "tenant CONSUMER_ID", []string{"tenants"}, short,
		long+"\n\nCONSUMER_ID is the Tenant's name, which Liqo and this tool set to the consumer's cluster ID.", "tenant <consumer-id>")
	opts.check = func() error {
		if err := flows.ValidateClusterID(opts.Arg); err != nil {
			return usagef("%s tenant %s: the Tenant is named after the consumer's cluster ID: %v", verb, opts.Arg, err)
		}
		return nil
	}
	opts.run = func(ctx context.Context, provider *flows.Cluster, confirm flows.ConfirmOptions) error {
		return run(ctx, provider, opts.Arg, confirm, opts.Printer.sink)
	}
	return cmd
}

// newSliceVerbCommand builds `<verb> resourceslice NAME --remote-cluster-id CONSUMER_ID`.
func newSliceVerbCommand(o *Options, verb, short, long string, run sliceVerb) *cobra.Command {
	cmd, opts := newVerbCommand(o, verb, "resourceslice NAME", []string{"resourceslices", "rs"}, short, long,
		"resourceslice <slice> --remote-cluster-id <consumer-id>")
	cmd.Flags().StringVar(&opts.ConsumerID, "remote-cluster-id", "", "cluster ID of the consumer whose ResourceSlice it is")
	_ = cmd.MarkFlagRequired("remote-cluster-id")
	opts.check = func() error {
		if err := flows.ValidateClusterID(opts.ConsumerID); err != nil {
			return usagef("--remote-cluster-id: %v", err)
		}
		return nil
	}
	opts.run = func(ctx context.Context, provider *flows.Cluster, confirm flows.ConfirmOptions) error {
		return run(ctx, provider, opts.Arg, opts.ConsumerID, confirm, opts.Printer.sink)
	}
	return cmd
}

// Run checks the arguments, then asks flows for the change.
func (o *VerbOptions) Run(ctx context.Context) error {
	if err := o.check(); err != nil {
		return err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	return o.notConfirmed(o.verb, o.run(ctx, provider, o.confirmOptions(o.Yes)))
}

// addYesFlags: --yes, and liqoctl's --skip-confirm for the same.
func addYesFlags(cmd *cobra.Command, yes *bool) {
	cmd.Flags().BoolVarP(yes, "yes", "y", false, "do it without asking")
	cmd.Flags().BoolVar(yes, "skip-confirm", false, "the same as --yes (liqoctl's name)")
}

// confirmOptions: --yes changes without asking; on a terminal the
// question is asked; elsewhere the change is refused.
func (o *Options) confirmOptions(yes bool) flows.ConfirmOptions {
	c := flows.ConfirmOptions{Yes: yes}
	if !yes && isTerminal(o) {
		c.Confirm = func(question string) bool { return o.askYes(question + "\nAre you sure you want to continue?") }
	}
	return c
}

// notConfirmed turns a change left unconfirmed into its one line: what to
// add without a terminal, or that the admin said no.
func (o *Options) notConfirmed(verb string, err error) error {
	if !errors.Is(err, flows.ErrNotConfirmed) {
		return err
	}
	if !isTerminal(o) {
		return usagef("%s asks for confirmation and this is not a terminal: nothing changed; run again with --yes (liqoctl's --skip-confirm)", verb)
	}
	return errors.New(verb + " not confirmed: nothing changed")
}

package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// UnauthenticateOptions undo authenticate.
type UnauthenticateOptions struct {
	*Options
	Remote      ClusterFlags
	StepTimeout time.Duration
	Engine      EngineFlags
	// Liqo0xUnauth: a Liqo 0.x pair (liqo0x_routing.go).
	Liqo0xUnauth Liqo0xUnauthFlags
	// Output prints the result on stdout (yaml or json).
	Output string
}

func newUnauthenticateCommand(o *Options) *cobra.Command {
	opts := &UnauthenticateOptions{Options: o}
	cmd := &cobra.Command{
		Use:     "unauthenticate",
		Aliases: []string{"unauth"},
		Short:   "Remove the consumer's Identity and the provider's Tenant (and the consumer's permissions)",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addRemoteFlags(cmd, &opts.Remote)
	addInProcessFlag(cmd, &opts.Engine)
	cmd.Flags().StringVar(&opts.Remote.ProxyURL, "proxy-url", "",
		"proxy through which this command reaches the provider's API server, http://HOST:PORT, unless the provider's kubeconfig sets its own proxy-url")
	cmd.Flags().DurationVar(&opts.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	addLiqo0xUnauthFlags(cmd, &opts.Liqo0xUnauth)
	addResultOutputFlag(cmd.Flags(), &opts.Output)
	return cmd
}

// Run unauthenticates the two clusters; with -o, the result goes to stdout.
func (o *UnauthenticateOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "", "json", "yaml"); err != nil {
		return err
	}
	res, err := o.unauthenticate(ctx)
	return o.printResult(o.Output, res, err)
}

// unauthenticate returns the result: a *flows.UnauthenticateResult, or a
// *liqo0x.UnauthResult for a Liqo 0.x pair.
func (o *UnauthenticateOptions) unauthenticate(ctx context.Context) (any, error) {
	if err := o.Liqo0xUnauth.check(); err != nil {
		return nil, err
	}
	if err := flows.CheckProxyURL(o.Remote.ProxyURL); err != nil {
		return nil, usagef("--proxy-url: %v", err)
	}
	engine, err := o.Engine.options()
	if err != nil {
		return nil, err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	if o.Liqo0xUnauth.OneSided {
		return o.unauthOneSided(ctx)
	}
	consumer, provider, err := o.connectBoth(ctx, o.Remote)
	if err != nil {
		return nil, err
	}
	if route, err := flows.UnauthenticationRoute(ctx, consumer, provider, ""); err != nil {
		return nil, err
	} else if route == handshake.RouteLiqo0x {
		return o.runLiqo0xUnauth(ctx, consumer, provider)
	}
	return flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: o.StepTimeout, Engine: engine}, o.Printer.sink)
}

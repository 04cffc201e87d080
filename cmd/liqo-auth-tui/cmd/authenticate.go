package cmd

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// AuthenticateOptions run the whole handshake with both kubeconfigs:
// consumer local, provider remote.
type AuthenticateOptions struct {
	*Options
	Remote      ClusterFlags
	Proxy       ProxyFlags
	StepTimeout time.Duration
	Engine      EngineFlags
	// Liqo0x: a provider running Liqo 0.x (liqo0x_routing.go).
	Liqo0x Liqo0xFlags
	// Yes authenticates without asking, in a terminal, whether the pair
	// is the right way round.
	Yes bool
	// Output prints the result on stdout (yaml or json).
	Output string
	// SkipPodReachCheck: see addPodReachFlag.
	SkipPodReachCheck bool
}

func newAuthenticateCommand(o *Options) *cobra.Command {
	opts := &AuthenticateOptions{Options: o}
	cmd := &cobra.Command{
		Use:     "authenticate",
		Aliases: []string{"auth"},
		Short:   "Authenticate a consumer (--kubeconfig) with a provider (--remote-kubeconfig)",
		Long: `Runs the whole Liqo authentication handshake when you reach both clusters: nonce,
signed nonce, Tenant, certificate and Identity, ending with a kubeconfig Secret on the
consumer that reaches the provider. Idempotent: re-running changes nothing, and an
interrupted run completes when started again. Clusters without a controller are served
by controllers run in-process for the command's duration.`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{resumesAnnotation: "true"},
		RunE:        func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addRemoteFlags(cmd, &opts.Remote)
	addEngineFlags(cmd, &opts.Engine)
	addProxyFlags(cmd, &opts.Proxy, true)
	cmd.Flags().DurationVar(&opts.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	addLiqo0xFlags(cmd.Flags(), &opts.Liqo0x, true)
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask, in a terminal, whether the consumer and the provider are the right way round")
	addResultOutputFlag(cmd.Flags(), &opts.Output)
	addPodReachFlag(cmd, &opts.SkipPodReachCheck)
	return cmd
}

// Run authenticates the two clusters; with -o, the result goes to stdout.
func (o *AuthenticateOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "", "json", "yaml"); err != nil {
		return err
	}
	res, err := o.authenticate(ctx)
	return o.printResult(o.Output, res, err)
}

// authenticate runs the handshake and returns its result: a
// *flows.Result, or a *liqo0x.Result with a Liqo 0.x provider.
func (o *AuthenticateOptions) authenticate(ctx context.Context) (any, error) {
	if err := o.Liqo0x.check(); err != nil {
		return nil, err
	}
	proxyURL, err := o.Proxy.resolve(o.Printer, true)
	if err != nil {
		return nil, err
	}
	engine, err := o.Engine.options()
	if err != nil {
		return nil, err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	// The tool reaches the provider the way the consumer will.
	remote := o.Remote
	remote.ProxyURL = proxyURL
	consumer, provider, err := o.connectBoth(ctx, remote)
	if err != nil {
		return nil, err
	}
	if err := o.confirmPair(ctx, consumer, provider); err != nil {
		return nil, err
	}
	if route, err := flows.AuthenticationRouteTo(ctx, provider); err != nil {
		return nil, flows.Scoped(handshake.Remote, err)
	} else if route == handshake.RouteLiqo0x {
		if o.Proxy.derive() {
			return nil, errors.New("--in-band: the provider runs Liqo 0.x, whose in-band peering (peeringType InBand) this tool does not do; nothing written: drop --in-band")
		}
		return o.runLiqo0x(ctx, consumer, provider)
	}
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{
		Consumer: consumer, Provider: provider, ProxyURL: proxyURL, InBand: o.Proxy.derive(), StepTimeout: o.StepTimeout, Engine: engine,
		SkipPodReachCheck: o.SkipPodReachCheck,
	}, o.Printer.sink)
	if err != nil {
		return nil, err
	}
	o.Printer.Info(handshake.NoScope, "Consumer %s is authenticated with provider %s: kubeconfig Secret %s (consumer key %s)",
		res.ConsumerID, res.ProviderID, res.KubeconfigSecret, res.ConsumerFingerprint)
	return res, nil
}

// confirmPair names both clusters before anything is written: swapped
// kubeconfigs would authenticate the other way round. It is the first line
// of the output; in a terminal, the admin is asked too, unless --yes.
func (o *AuthenticateOptions) confirmPair(ctx context.Context, consumer, provider *flows.Cluster) error {
	pair := flows.PairLine(ctx, consumer, provider)
	if o.Yes || !isTerminal(o.Options) {
		o.Printer.Info(handshake.NoScope, "%s", pair)
		return nil
	}
	if !o.askYes(pair + "\nAuthenticate this consumer with this provider?") {
		return errors.New("nothing written: the consumer is --kubeconfig and the provider --remote-kubeconfig; swap them if they are the other way round")
	}
	return nil
}

// connectBoth connects to the local (consumer) and remote (provider)
// clusters, naming which one failed. The provider must be named: falling
// back to the default kubeconfig would pair the consumer with itself, or
// with whatever KUBECONFIG points at.
func (o *Options) connectBoth(ctx context.Context, remote ClusterFlags) (consumer, provider *flows.Cluster, err error) {
	if remote.Kubeconfig == "" && remote.Context == "" {
		return nil, nil, usagef("the provider is missing: give its kubeconfig with --remote-kubeconfig (or --remote-context, a context of your KUBECONFIG)")
	}
	if consumer, err = o.connectReachable(ctx, o.Local); err != nil {
		return nil, nil, flows.Scoped(handshake.Local, err)
	}
	if provider, err = o.connectReachable(ctx, remote); err != nil {
		return nil, nil, flows.Scoped(handshake.Remote, err)
	}
	return consumer, provider, nil
}

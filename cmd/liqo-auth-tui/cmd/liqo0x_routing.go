package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
)

// Liqo0xSessionFlags are the root's Liqo 0.x flags for --batch.
type Liqo0xSessionFlags struct {
	Liqo0xFlags
	PeerInfoFile string
}

func addLiqo0xSessionFlags(root *cobra.Command, f *Liqo0xSessionFlags) {
	addLiqo0xFlags(root.Flags(), &f.Liqo0xFlags, true)
	root.Flags().StringVar(&f.PeerInfoFile, "peer-info-file", "", "consumer of a Liqo 0.x provider: file with the provider's peer info (- = stdin)")
}

// runLiqo0x is authenticate against a provider running Liqo 0.x.
func (o *AuthenticateOptions) runLiqo0x(ctx context.Context, consumer, provider *flows.Cluster) (*liqo0x.Result, error) {
	if err := o.Liqo0x.check(); err != nil {
		return nil, err
	}
	res, err := liqo0x.Authenticate(ctx, consumer, provider, o.Liqo0x.AuthURL, o.Liqo0x.options(o.StepTimeout), o.Printer.sink)
	if err != nil {
		return nil, err
	}
	return res, o.reportLiqo0x(res, o.Liqo0x)
}

// Liqo0xUnauthFlags are unauthenticate's Liqo 0.x flags.
type Liqo0xUnauthFlags struct {
	Yes             bool
	OneSided        bool
	RemoteClusterID string
}

func addLiqo0xUnauthFlags(cmd *cobra.Command, f *Liqo0xUnauthFlags) {
	cmd.Flags().BoolVarP(&f.Yes, "yes", "y", false, "Liqo 0.x: delete what authentication left without asking")
	cmd.Flags().BoolVar(&f.OneSided, "one-sided", false, "the other cluster is gone: clean the consumer (--kubeconfig) or, with --remote-kubeconfig, the provider only, and print what is left on the other")
	cmd.Flags().StringVar(&f.RemoteClusterID, "remote-cluster-id", "", "with --one-sided: the ID of the cluster that is gone")
}

// check refuses bad flags before any cluster is dialed.
func (f Liqo0xUnauthFlags) check() error {
	switch {
	case f.OneSided && f.RemoteClusterID == "":
		return usagef("--one-sided needs --remote-cluster-id (the ID of the cluster that is gone)")
	case !f.OneSided && f.RemoteClusterID != "":
		return usagef("--remote-cluster-id is for --one-sided: drop it, or add --one-sided when the other cluster is gone")
	}
	return nil
}

// runLiqo0xUnauth removes what a Liqo 0.x authentication left; consumer or
// provider is nil when one-sided.
func (o *UnauthenticateOptions) runLiqo0xUnauth(ctx context.Context, consumer, provider *flows.Cluster) (*liqo0x.UnauthResult, error) {
	opts := liqo0x.UnauthOptions{Consumer: consumer, Provider: provider, Yes: o.Liqo0xUnauth.Yes}
	if consumer == nil {
		opts.ConsumerID = o.Liqo0xUnauth.RemoteClusterID
	}
	if provider == nil {
		opts.ProviderID = o.Liqo0xUnauth.RemoteClusterID
	}
	if !opts.Yes && isTerminal(o.Options) {
		opts.Confirm = o.confirm
	}
	res, err := liqo0x.Unauthenticate(ctx, opts, o.Printer.sink)
	if errors.Is(err, flows.ErrNotConfirmed) {
		return nil, fmt.Errorf("nothing deleted: run again with --yes to delete the objects listed above")
	}
	if err != nil {
		return nil, err
	}
	o.reportLiqo0xUnauth(res, provider != nil)
	return res, nil
}

// reportLiqo0xUnauth ends unauthenticate with what the old certificate may
// still do: only the provider's side decides it.
func (o *UnauthenticateOptions) reportLiqo0xUnauth(res *liqo0x.UnauthResult, providerCleaned bool) {
	switch {
	case !res.Deleted:
	case providerCleaned:
		o.Printer.Info(handshake.NoScope, "Consumer %s's identity on provider %s is authorized for nothing any more", res.ConsumerID, res.ProviderID)
	default:
		o.Printer.Warn(handshake.NoScope, "Provider %s still authorizes consumer %s's certificate until its admin runs the commands printed above",
			res.ProviderID, res.ConsumerID)
	}
}

// confirm asks on the terminal before deleting.
func (o *UnauthenticateOptions) confirm(objects []string) bool {
	return o.askYes(fmt.Sprintf("Delete these %d objects?\n  %s\n", len(objects), strings.Join(objects, "\n  ")))
}

// unauthOneSided connects only to the side still there and removes what
// authentication left on it: Liqo 0.x's leftovers, or the v1 Identity or
// Tenant (flows.Unauthenticate), as flows.UnauthenticationRoute tells
// from that side. It returns the result (see
// UnauthenticateOptions.unauthenticate).
func (o *UnauthenticateOptions) unauthOneSided(ctx context.Context) (any, error) {
	remoteID := o.Liqo0xUnauth.RemoteClusterID
	var consumer, provider *flows.Cluster
	var err error
	if o.Remote.Kubeconfig != "" || o.Remote.Context != "" {
		if provider, err = o.connectReachable(ctx, o.Remote); err != nil {
			return nil, flows.Scoped(handshake.Remote, err)
		}
	} else if consumer, err = o.connectReachable(ctx, o.Local); err != nil {
		return nil, flows.Scoped(handshake.Local, err)
	}
	route, err := flows.UnauthenticationRoute(ctx, consumer, provider, remoteID)
	if err != nil {
		return nil, err
	}
	if route == handshake.RouteLiqo0x {
		return o.runLiqo0xUnauth(ctx, consumer, provider)
	}
	opts := flows.UnauthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: o.StepTimeout}
	if consumer == nil {
		opts.ConsumerID = remoteID
	} else {
		opts.ProviderID = remoteID
	}
	return flows.Unauthenticate(ctx, opts, o.Printer.sink)
}

// liqo0xProviderStep is --batch --role provider on a Liqo 0.x provider:
// the peer info on stdout, the consumer's next command on stderr.
func (o *BatchOptions) liqo0xProviderStep(ctx context.Context, provider *flows.Cluster) error {
	g := &GeneratePeerInfoOptions{Options: o.Options, AuthURL: o.Liqo0xSession.AuthURL, Output: "text", consumerID: o.Session.RemoteClusterID, batch: true}
	return g.generate(ctx, provider)
}

// liqo0xConsumerStep is --batch --role consumer --peer-info-file.
func (o *BatchOptions) liqo0xConsumerStep(ctx context.Context) error {
	s := o.Session
	if s.Nonce != "" || s.NonceFile != "" || s.IdentityFile != "" || s.TenantFile != "" {
		return usagef("--peer-info-file is the whole consumer step of a Liqo 0.x provider: drop --nonce, --nonce-file, --tenant-file and --identity-file")
	}
	if o.BatchSlice.Name != "" {
		return usagef("--resource-slice is for Liqo v1 providers: a Liqo 0.x provider shares resources through liqoctl peer")
	}
	apply := &ApplyPeerInfoOptions{Options: o.Options, File: o.Liqo0xSession.PeerInfoFile, Liqo0x: o.Liqo0xSession.Liqo0xFlags,
		StepTimeout: o.Timeout, providerID: s.RemoteClusterID, ProviderFingerprint: s.ProviderFingerprint}
	return apply.Run(ctx)
}

package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// LegacySessionFlags are the root's Liqo 0.x flags for --batch.
type LegacySessionFlags struct {
	LegacyFlags
	PeerInfoFile string
}

func addLegacySessionFlags(root *cobra.Command, f *LegacySessionFlags) {
	addLegacyFlags(root.Flags(), &f.LegacyFlags, true)
	root.Flags().StringVar(&f.PeerInfoFile, "peer-info-file", "", "consumer of a Liqo 0.x provider: file with the provider's peer info (- = stdin)")
}

// runLegacy is authenticate against a provider running Liqo 0.x.
func (o *AuthenticateOptions) runLegacy(ctx context.Context, consumer, provider *flows.Cluster) error {
	if err := o.Legacy.check(); err != nil {
		return err
	}
	res, err := flows.AuthenticateLegacy(ctx, consumer, provider, o.Legacy.AuthURL, o.Legacy.options(o.StepTimeout), o.Printer.sink)
	if err != nil {
		return err
	}
	return o.reportLegacy(res, o.Legacy)
}

// LegacyUnauthFlags are unauthenticate's Liqo 0.x flags.
type LegacyUnauthFlags struct {
	Yes             bool
	OneSided        bool
	RemoteClusterID string
}

func addLegacyUnauthFlags(cmd *cobra.Command, f *LegacyUnauthFlags) {
	cmd.Flags().BoolVarP(&f.Yes, "yes", "y", false, "Liqo 0.x: delete what authentication left without asking")
	cmd.Flags().BoolVar(&f.OneSided, "one-sided", false, "the other cluster is gone: clean the consumer (--kubeconfig) or, with --remote-kubeconfig, the provider only, and print what is left on the other")
	cmd.Flags().StringVar(&f.RemoteClusterID, "remote-cluster-id", "", "with --one-sided: the ID of the cluster that is gone")
}

// check refuses bad flags before any cluster is dialed.
func (f LegacyUnauthFlags) check() error {
	switch {
	case f.OneSided && f.RemoteClusterID == "":
		return usagef("--one-sided needs --remote-cluster-id (the ID of the cluster that is gone)")
	case !f.OneSided && f.RemoteClusterID != "":
		return usagef("--remote-cluster-id is for --one-sided: drop it, or add --one-sided when the other cluster is gone")
	}
	return nil
}

// runLegacyUnauth removes what a Liqo 0.x authentication left; consumer or
// provider is nil when one-sided.
func (o *UnauthenticateOptions) runLegacyUnauth(ctx context.Context, consumer, provider *flows.Cluster) error {
	opts := flows.LegacyUnauthOptions{Consumer: consumer, Provider: provider, Yes: o.LegacyUnauth.Yes}
	if consumer == nil {
		opts.ConsumerID = o.LegacyUnauth.RemoteClusterID
	}
	if provider == nil {
		opts.ProviderID = o.LegacyUnauth.RemoteClusterID
	}
	if !opts.Yes && isTerminal(o.Options) {
		opts.Confirm = o.confirm
	}
	res, err := flows.UnauthenticateLegacy(ctx, opts, o.Printer.sink)
	if errors.Is(err, flows.ErrNotConfirmed) {
		return fmt.Errorf("nothing deleted: run again with --yes to delete the objects listed above")
	}
	if err != nil {
		return err
	}
	o.reportLegacyUnauth(res, provider != nil)
	return nil
}

// reportLegacyUnauth ends unauthenticate with what the old certificate may
// still do: only the provider's side decides it.
func (o *UnauthenticateOptions) reportLegacyUnauth(res *flows.LegacyUnauthResult, providerCleaned bool) {
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
	fmt.Fprintf(o.Printer.Err, "Delete these %d objects?\n  %s\n[y/N] ", len(objects), strings.Join(objects, "\n  "))
	answer, _ := bufio.NewReader(o.In).ReadString('\n')
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes"
}

// unauthOneSided connects only to the side still there and removes what
// authentication left on it: Liqo 0.x's leftovers, or the v1 Identity or
// Tenant (flows.UnauthenticateWithResult), as that side shows.
func (o *UnauthenticateOptions) unauthOneSided(ctx context.Context) error {
	remoteID := o.LegacyUnauth.RemoteClusterID
	if o.Remote.Kubeconfig != "" || o.Remote.Context != "" {
		provider, err := o.connectReachable(ctx, o.Remote)
		if err != nil {
			return flows.Scoped(handshake.Remote, err)
		}
		legacy, err := flows.ClusterRunsLegacy(ctx, provider)
		if err != nil {
			return flows.Scoped(handshake.Remote, err)
		}
		if legacy {
			return o.runLegacyUnauth(ctx, nil, provider)
		}
		_, err = flows.UnauthenticateWithResult(ctx, flows.UnauthenticateOptions{Provider: provider, ConsumerID: remoteID, StepTimeout: o.StepTimeout}, o.Printer.sink)
		return err
	}
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return flows.Scoped(handshake.Local, err)
	}
	legacy, err := flows.ConsumerHoldsLegacy(ctx, consumer, remoteID)
	if err != nil {
		return flows.Scoped(handshake.Local, err)
	}
	if legacy {
		return o.runLegacyUnauth(ctx, consumer, nil)
	}
	_, err = flows.UnauthenticateWithResult(ctx, flows.UnauthenticateOptions{Consumer: consumer, ProviderID: remoteID, StepTimeout: o.StepTimeout}, o.Printer.sink)
	return err
}

// legacyProviderStep is --batch --role provider on a Liqo 0.x provider:
// the peer info on stdout, the consumer's next command on stderr.
func (o *BatchOptions) legacyProviderStep(ctx context.Context, provider *flows.Cluster) error {
	g := &GeneratePeerInfoOptions{Options: o.Options, AuthURL: o.LegacySession.AuthURL, Output: "text", consumerID: o.Session.RemoteClusterID, batch: true}
	return g.generate(ctx, provider)
}

// legacyConsumerStep is --batch --role consumer --peer-info-file.
func (o *BatchOptions) legacyConsumerStep(ctx context.Context) error {
	s := o.Session
	if s.Nonce != "" || s.NonceFile != "" || s.IdentityFile != "" || s.TenantFile != "" {
		return usagef("--peer-info-file is the whole consumer step of a Liqo 0.x provider: drop --nonce, --nonce-file, --tenant-file and --identity-file")
	}
	if o.BatchSlice.Name != "" {
		return usagef("--resource-slice is for Liqo v1 providers: a Liqo 0.x provider shares resources through liqoctl peer")
	}
	apply := &ApplyPeerInfoOptions{Options: o.Options, File: o.LegacySession.PeerInfoFile, Legacy: o.LegacySession.LegacyFlags,
		StepTimeout: o.Timeout, providerID: s.RemoteClusterID}
	return apply.Run(ctx)
}

package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
)

// Liqo0xFlags are the choices of a Liqo 0.x authentication, shared by
// apply peer-info, authenticate and --batch.
type Liqo0xFlags struct {
	Peer                  bool
	KubeconfigOut         string
	InsecureSkipTLSVerify bool
	ClusterName           string
	ForeignClusterName    string
	AuthURL               string
	Reissue               bool
}

func addLiqo0xFlags(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
}, f *Liqo0xFlags, automated bool) {
	fs.BoolVar(&f.Peer, "peer", false, "Liqo 0.x consumer: also turn outgoing peering on in its ForeignCluster (default: authentication only)")
	fs.StringVar(&f.KubeconfigOut, "kubeconfig-out", "", "Liqo 0.x provider, consumer without Liqo: also write the identity's kubeconfig to this file (mode 0600)")
	fs.BoolVar(&f.InsecureSkipTLSVerify, "insecure-skip-tls-verify", liqo0x.DefaultInsecureSkipTLSVerify, "Liqo 0.x provider: accept its auth server's certificate when it cannot be verified (Liqo's default: the chart's is self-signed); it is verified whenever it can be")
	fs.StringVar(&f.ClusterName, "cluster-name", "", "Liqo 0.x provider, consumer without Liqo: this cluster's name there (default: CLUSTER_NAME of the cluster-ID ConfigMap, else from the ID; at most 44 characters)")
	fs.StringVar(&f.ForeignClusterName, "foreign-cluster-name", "", "Liqo 0.x consumer: name of the ForeignCluster to create (default: the provider's cluster name)")
	if automated {
		fs.StringVar(&f.AuthURL, "auth-url", "", "Liqo 0.x provider: its auth server's URL, https://HOST[:PORT] (default: from Service liqo-auth, as liqoctl does)")
		fs.BoolVar(&f.Reissue, "reissue", false, "Liqo 0.x provider: when it already issued this consumer's one identity, delete it there and ask again (you agree to replace it)")
	}
}

// check refuses bad flags before any cluster is dialed.
func (f Liqo0xFlags) check() error {
	if f.ClusterName != "" {
		if err := liqo0x.ValidateClusterName(f.ClusterName); err != nil {
			return usagef("--cluster-name: %v", err)
		}
	}
	if f.ForeignClusterName != "" {
		if err := flows.ValidateForeignClusterName(f.ForeignClusterName); err != nil {
			return usagef("--foreign-cluster-name: %v", err)
		}
	}
	if f.AuthURL != "" {
		if err := flows.ValidateAuthURL(f.AuthURL); err != nil {
			return usagef("--auth-url: %v", err)
		}
	}
	return nil
}

func (f Liqo0xFlags) options(stepTimeout time.Duration) liqo0x.Options {
	return liqo0x.Options{Peer: f.Peer, ForeignClusterName: f.ForeignClusterName, InsecureSkipTLSVerify: f.InsecureSkipTLSVerify,
		ConsumerName: f.ClusterName, Reissue: f.Reissue, StepTimeout: stepTimeout}
}

// GeneratePeerInfoOptions: Liqo 0.x provider side, print the peer info.
type GeneratePeerInfoOptions struct {
	*Options
	AuthURL    string
	Output     string
	OutputFile string
	ShowToken  bool
	// consumerID, when known (--batch), names the receiver.
	consumerID string
	batch      bool
}

func newGeneratePeerInfoCommand(o *Options) *cobra.Command {
	opts := &GeneratePeerInfoOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "peer-info",
		Short: "Liqo 0.x provider: print the peer info (cluster ID, auth URL, token) a consumer authenticates with",
		Long: `Gathers, on a provider running Liqo 0.x, what liqoctl generate peer-command prints: the
cluster ID and name, the auth server's URL (Service liqo-auth, its override annotations,
LoadBalancer or NodePort; --auth-url wins) and the auth token. Stdout gets one line (or
JSON with -o json) for the consumer's admin: liqo-auth-tui apply peer-info -f FILE. It
carries the token: hand it over privately. Stderr shows the token masked, unless
--show-token, and liqoctl's equivalent command.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	cmd.Flags().StringVar(&opts.AuthURL, "auth-url", "", "the auth server's URL, https://HOST[:PORT] (default: from Service liqo-auth, as liqoctl does)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: text (one line) or json")
	cmd.Flags().StringVar(&opts.OutputFile, "output-file", "", "write the peer info to this file (mode 0600) instead of stdout")
	cmd.Flags().BoolVar(&opts.ShowToken, "show-token", false, "show the token unmasked in liqoctl's equivalent command on stderr")
	return cmd
}

// check refuses bad flags before any cluster is dialed.
func (o *GeneratePeerInfoOptions) check() error {
	if err := checkOutputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	return Liqo0xFlags{AuthURL: o.AuthURL}.check()
}

// Run gathers and writes the peer info.
func (o *GeneratePeerInfoOptions) Run(ctx context.Context) error {
	if err := o.check(); err != nil {
		return err
	}
	return o.onLocal(ctx, o.generate)
}

// onLocal runs fn on the --kubeconfig cluster, within the command's timeout.
func (o *Options) onLocal(ctx context.Context, fn func(context.Context, *flows.Cluster) error) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	c, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	return fn(ctx, c)
}

func (o *GeneratePeerInfoOptions) generate(ctx context.Context, provider *flows.Cluster) error {
	if err := o.check(); err != nil {
		return err
	}
	info, err := liqo0x.GeneratePeerInfo(ctx, provider, o.AuthURL, o.Printer.sink)
	if err != nil {
		return err
	}
	line, err := artifact.EncodePeerInfo(info)
	if err != nil {
		return err
	}
	data := []byte(line + "\n")
	if o.Output == "json" {
		if data, err = artifact.PeerInfoJSON(info, liqo0x.LiqoctlPeerCommand(info)); err != nil {
			return err
		}
	}
	if err := o.writeSecret(o.OutputFile, data); err != nil {
		return err
	}
	masked := liqo0x.LiqoctlPeerCommand(liqo0x.MaskedPeerInfo(info))
	equivalent := masked
	if o.ShowToken {
		equivalent = liqo0x.LiqoctlPeerCommand(info)
	}
	release := info.Version
	if release == "" {
		release = string(info.Line)
	}
	o.Printer.Info(handshake.NoScope, "Cluster %s (%s), Liqo 0.x %s", info.ClusterName, info.ClusterID, release)
	o.Printer.Info(handshake.NoScope, "Auth URL %s, token %s (it is in the peer info: hand it over privately)", info.AuthURL, info.MaskedToken())
	// Best effort: an auth URL this machine cannot reach gives no pin.
	pin, _ := flows.ServerCertificateFingerprint(ctx, info.AuthURL)
	if pin != "" {
		o.Printer.Info(handshake.NoScope, "Auth server certificate %s", pin)
	}
	o.Printer.Info(handshake.NoScope, "With liqoctl on the consumer: %s", equivalent)
	o.Printer.Info(handshake.NoScope, "%s", handshake.Handoff{Kind: handshake.KindPeerInfo, SenderID: info.ClusterID, ReceiverID: o.consumerID,
		File: o.OutputFile, Batch: o.batch, Equivalent: masked, Pin: pin}.Line())
	if info.AuthenticationDisabled {
		o.Printer.Warn(handshake.NoScope, "%s", handshake.AuthenticationDisabledWarning(info.AuthURL))
	}
	return nil
}

// ApplyPeerInfoOptions: consumer side, authenticate with a Liqo 0.x
// provider from its peer info.
type ApplyPeerInfoOptions struct {
	*Options
	File        string
	Liqo0x      Liqo0xFlags
	StepTimeout time.Duration
	// ProviderFingerprint pins the auth server's certificate.
	ProviderFingerprint string
	// providerID, when set (--batch --remote-cluster-id), is the provider
	// the peer info must come from.
	providerID string
}

func newApplyPeerInfoCommand(o *Options) *cobra.Command {
	opts := &ApplyPeerInfoOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "peer-info",
		Short: "Consumer: authenticate with a Liqo 0.x provider from its peer info",
		Long: `Authenticates this cluster with the Liqo 0.x provider a peer info names (printed there by
liqo-auth-tui generate peer-info). A consumer running Liqo 0.x gets what liqoctl peer
out-of-band writes, in its order (the token Secret, then the ForeignCluster, outgoing
peering off unless --peer) and the tool waits for its AuthenticationStatus. A cluster
prepared by init, or without Liqo, is authenticated by this tool itself against the
provider's auth server; the identity becomes a kubeconfig Secret (and --kubeconfig-out).
The token is checked first where the auth server answers from here; a bad peer info or a
wrong token writes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	cmd.Flags().StringVarP(&opts.File, "filename", "f", "", "file holding the peer info (- = stdin)")
	_ = cmd.MarkFlagRequired("filename")
	addLiqo0xFlags(cmd.Flags(), &opts.Liqo0x, false)
	addProviderPinFlag(cmd.Flags(), &opts.ProviderFingerprint)
	cmd.Flags().DurationVar(&opts.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	return cmd
}

// Run reads the peer info, then authenticates.
func (o *ApplyPeerInfoOptions) Run(ctx context.Context) error {
	info, err := o.read()
	if err != nil {
		return err
	}
	return o.onLocal(ctx, func(ctx context.Context, consumer *flows.Cluster) error { return o.apply(ctx, consumer, info) })
}

// read checks the flags and reads the peer info, before any cluster is
// dialed.
func (o *ApplyPeerInfoOptions) read() (*liqo0x.PeerInfo, error) {
	if err := o.Liqo0x.check(); err != nil {
		return nil, err
	}
	if _, err := parsePin(providerPinFlag, o.ProviderFingerprint); err != nil {
		return nil, err
	}
	data, err := o.readInput(o.File, "peer info")
	if err != nil {
		return nil, err
	}
	info, err := artifact.ParsePeerInfo(data)
	if err != nil {
		return nil, err
	}
	if o.providerID != "" && info.ClusterID != o.providerID {
		return nil, fmt.Errorf("the peer info is from provider %s, not from --remote-cluster-id %s: pass the peer info of %s", info.ClusterID, o.providerID, o.providerID)
	}
	return info, nil
}

func (o *ApplyPeerInfoOptions) apply(ctx context.Context, consumer *flows.Cluster, info *liqo0x.PeerInfo) error {
	opts := o.Liqo0x.options(o.StepTimeout)
	opts.AuthServerFingerprint, _ = parsePin(providerPinFlag, o.ProviderFingerprint) // checked by read
	res, err := liqo0x.ApplyPeerInfo(ctx, consumer, info, opts, o.Printer.sink)
	if err != nil {
		return err
	}
	return o.Options.reportLiqo0x(res, o.Liqo0x)
}

// reportLiqo0x prints a Liqo 0.x authentication's result and writes
// --kubeconfig-out.
func (o *Options) reportLiqo0x(res *liqo0x.Result, f Liqo0xFlags) error {
	if f.KubeconfigOut != "" {
		if len(res.Kubeconfig) == 0 {
			o.Printer.Warn(handshake.Local, "--kubeconfig-out: the consumer's Liqo 0.x holds the identity (Secret %s): nothing written to %s", res.IdentitySecret, f.KubeconfigOut)
		} else if err := o.writeSecret(f.KubeconfigOut, res.Kubeconfig); err != nil {
			return err
		}
	}
	expires := "unknown"
	if !res.NotAfter.IsZero() {
		expires = res.NotAfter.UTC().Format(time.RFC3339)
	}
	who := res.User
	if len(res.Groups) > 0 {
		who += " " + fmt.Sprint(res.Groups)
	}
	if res.AlreadyAuthenticated {
		issued := "unknown"
		if !res.Issued.IsZero() {
			issued = res.Issued.UTC().Format(time.RFC3339)
		}
		o.Printer.Info(handshake.NoScope, "Consumer %s was already authenticated with provider %s as %s (Secret %s, issued %s, expires %s): the token was NOT sent",
			res.ConsumerID, res.ProviderID, who, res.IdentitySecret, issued, expires)
	} else {
		o.Printer.Info(handshake.NoScope, "Consumer %s is authenticated with provider %s as %s: identity Secret %s, expires %s",
			res.ConsumerID, res.ProviderID, who, res.IdentitySecret, expires)
	}
	if res.AuthenticationDisabled {
		o.Printer.Warn(handshake.Remote, "%s", handshake.AuthenticationDisabledWarning(""))
	}
	o.Printer.Info(handshake.NoScope, "Check it with `liqo-auth-tui verify --remote-cluster-id %s`", res.ProviderID)
	return nil
}

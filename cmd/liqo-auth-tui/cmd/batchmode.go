package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
)

// BatchOptions run `liqo-auth-tui --batch`: the wizard's decisions without
// a terminal.
type BatchOptions struct {
	*Options
	// root, when set, is the root command: its flags tell which slice
	// flags were given.
	root *cobra.Command
}

// BatchSliceFlags ask --batch for a ResourceSlice once the consumer is
// authenticated (the whole handshake, or the consumer's last manual step).
type BatchSliceFlags struct {
	Name string
	SliceFlags
}

func addBatchSliceFlags(root *cobra.Command, f *BatchSliceFlags) {
	fl := root.Flags()
	fl.StringVar(&f.Name, "resource-slice", "", "--batch, consumer: once authenticated, ask the provider for a ResourceSlice of this name (with --cpu, --memory, --pods, --class, --no-virtual-node)")
	addSliceFlags(fl, &f.SliceFlags)
}

// check refuses slice flags without --resource-slice, and a bad request
// before anything is written.
func (f BatchSliceFlags) check(root *cobra.Command) error {
	if f.Name == "" {
		for _, name := range []string{"cpu", "memory", "pods", "class", "no-virtual-node"} {
			if fl := root.Flags().Lookup(name); fl != nil && fl.Changed {
				return usagef("--%s asks for a ResourceSlice: give --resource-slice NAME too", name)
			}
		}
		return nil
	}
	if err := artifact.CheckSliceRequest(f.request(f.Name, "")); err != nil {
		return usagef("--resource-slice: %v", err)
	}
	return nil
}

// isTerminal tells whether both stdin and stdout are terminals.
func isTerminal(o *Options) bool {
	in, ok1 := o.In.(*os.File)
	out, ok2 := o.Printer.Out.(*os.File)
	return ok1 && ok2 && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}

// Run: both kubeconfigs → the whole handshake; one kubeconfig + --role →
// the next pending step of that side, with artifacts from files or stdin,
// the outgoing artifact on stdout and the next instruction on stderr.
func (o *BatchOptions) Run(ctx context.Context) error {
	s := o.Session
	if err := checkOutputFormat(s.Output, "", "json", "yaml"); err != nil {
		return err
	}
	if err := s.Proxy.check(s.Remote.Kubeconfig != "" || s.Remote.Context != ""); err != nil {
		return err
	}
	if o.root != nil {
		if err := o.BatchSlice.check(o.root); err != nil {
			return err
		}
	}
	if s.Remote.Kubeconfig != "" || s.Remote.Context != "" {
		if s.Role != "" {
			return usagef("--role is for manual mode with one kubeconfig: drop it or --remote-kubeconfig")
		}
		if o.Liqo0xSession.PeerInfoFile != "" {
			return usagef("--peer-info-file is for the consumer alone (--role consumer): with --remote-kubeconfig the tool reads the provider's peer info itself; drop one of them")
		}
		// --batch asks nothing: the pair is named on the first line.
		a := &AuthenticateOptions{Options: o.Options, Remote: s.Remote, Engine: s.Engine, Proxy: s.Proxy, StepTimeout: o.Timeout, Liqo0x: o.Liqo0xSession.Liqo0xFlags,
			Yes: true, SkipPodReachCheck: s.SkipPodReachCheck}
		res, err := a.authenticate(ctx)
		if err == nil && o.BatchSlice.Name != "" {
			err = o.requestSlice(ctx)
		}
		return o.printResult(s.Output, res, err)
	}
	if s.Output != "" {
		return usagef("-o/--output is for --batch with both kubeconfigs: with --role, stdout carries the artifact for the other admin")
	}
	if s.RemoteClusterID == "" {
		return usagef("--batch with one kubeconfig needs --role and --remote-cluster-id (the other cluster's ID)")
	}
	switch s.Role {
	case string(handshake.RoleProvider):
		if o.BatchSlice.Name != "" {
			return usagef("--resource-slice is asked by the consumer: drop it with --role provider")
		}
		return o.providerStep(ctx)
	case string(handshake.RoleConsumer):
		return o.consumerStep(ctx)
	case "":
		return usagef("--batch with one kubeconfig needs --role provider or --role consumer (or give --remote-kubeconfig for the whole handshake)")
	}
	return usagef("--role %q: use provider or consumer", s.Role)
}

func (o *BatchOptions) providerStep(ctx context.Context) error {
	s := o.Session
	if s.Nonce != "" || s.NonceFile != "" || s.IdentityFile != "" || o.Liqo0xSession.PeerInfoFile != "" {
		return usagef("--role provider takes --tenant-file, not --nonce, --nonce-file, --identity-file or --peer-info-file")
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	if s.TenantFile != "" {
		apply := &ApplyTenantOptions{Options: o.Options, File: s.TenantFile, Engine: s.Engine, StepTimeout: o.Timeout, consumerID: s.RemoteClusterID,
			ConsumerFingerprint: s.ConsumerFingerprint}
		if err := apply.apply(ctx, provider); err != nil {
			return err
		}
		return o.emitIdentity(ctx, provider)
	}
	if route, err := flows.AuthenticationRouteTo(ctx, provider); err != nil {
		return err
	} else if route == handshake.RouteLiqo0x {
		return o.liqo0xProviderStep(ctx, provider)
	}
	stage, err := peerings.ProviderStage(ctx, provider, s.RemoteClusterID)
	if err != nil {
		return err
	}
	if stage.Next(handshake.RoleProvider) == handshake.NextGenerateIdentity {
		o.Printer.Info(handshake.NoScope, "The Tenant of consumer %s is already accepted: sending the Identity again", s.RemoteClusterID)
		return o.emitIdentity(ctx, provider)
	}
	n := &NonceOptions{Options: o.Options, ConsumerID: s.RemoteClusterID, Engine: s.Engine, StepTimeout: o.Timeout}
	return n.create(ctx, provider, true)
}

func (o *BatchOptions) emitIdentity(ctx context.Context, provider *flows.Cluster) error {
	g := &GenerateIdentityOptions{Options: o.Options, ConsumerID: o.Session.RemoteClusterID}
	return g.generate(ctx, provider, true)
}

func (o *BatchOptions) consumerStep(ctx context.Context) error {
	s := o.Session
	if o.Liqo0xSession.PeerInfoFile != "" {
		return o.liqo0xConsumerStep(ctx)
	}
	if s.TenantFile != "" {
		return usagef("--role consumer takes --nonce, --nonce-file or --identity-file, not --tenant-file")
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	if s.IdentityFile != "" {
		apply := &ApplyIdentityOptions{Options: o.Options, File: s.IdentityFile, Engine: s.Engine, StepTimeout: o.Timeout, providerID: s.RemoteClusterID,
			SkipPodReachCheck:   s.SkipPodReachCheck,
			ProviderFingerprint: s.ProviderFingerprint}
		if err := apply.apply(ctx, consumer); err != nil || o.BatchSlice.Name == "" {
			return err
		}
		return o.createSlice(ctx, consumer, nil, s.RemoteClusterID)
	}
	if o.BatchSlice.Name != "" && (s.Nonce != "" || s.NonceFile != "") {
		return usagef("--resource-slice needs an authenticated provider: give it with --identity-file (the consumer's last step), not with the nonce")
	}
	gen := &GenerateTenantOptions{Options: o.Options, ProviderID: s.RemoteClusterID, Nonce: s.Nonce, NonceFile: s.NonceFile, Engine: s.Engine,
		Proxy: s.Proxy, StepTimeout: o.Timeout}
	if s.Nonce == "" && s.NonceFile == "" {
		stage, err := peerings.ConsumerStage(ctx, consumer, s.RemoteClusterID)
		if err != nil {
			return err
		}
		next := stage.Next(handshake.RoleConsumer)
		if next == handshake.NextVerify {
			if o.BatchSlice.Name != "" {
				return o.createSlice(ctx, consumer, nil, s.RemoteClusterID)
			}
			o.Printer.Info(handshake.NoScope, "Already authenticated with provider %s: check it with `liqo-auth-tui verify --remote-cluster-id %s`", s.RemoteClusterID, s.RemoteClusterID)
			return nil
		}
		if o.BatchSlice.Name != "" {
			return fmt.Errorf("--resource-slice: not authenticated with provider %s yet: finish the handshake first (the last consumer step takes --identity-file)", s.RemoteClusterID)
		}
		if next == handshake.NextReceiveNonce {
			return fmt.Errorf("no nonce from provider %s yet: pass it with --nonce-file (the provider gets it with `liqo-auth-tui --batch --role provider --remote-cluster-id <this cluster's ID>`)", s.RemoteClusterID)
		}
	}
	return gen.generate(ctx, consumer, true)
}

// requestSlice asks for the --resource-slice once the whole handshake is
// done, both kubeconfigs at hand (the provider is served too when needed).
func (o *BatchOptions) requestSlice(ctx context.Context) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	remote := o.Session.Remote
	remote.ProxyURL = o.Session.Proxy.ProxyURL // reached as authenticate reached it
	consumer, provider, err := o.connectBoth(ctx, remote)
	if err != nil {
		return err
	}
	providerID, err := flows.ClusterID(ctx, provider)
	if err != nil {
		return flows.Scoped(handshake.Remote, err)
	}
	return o.createSlice(ctx, consumer, provider, providerID)
}

func (o *BatchOptions) createSlice(ctx context.Context, consumer, provider *flows.Cluster, providerID string) error {
	c := &CreateResourceSliceOptions{Options: o.Options, Engine: o.Session.Engine, StepTimeout: o.Timeout}
	return c.create(ctx, consumer, provider, o.BatchSlice.request(o.BatchSlice.Name, providerID))
}

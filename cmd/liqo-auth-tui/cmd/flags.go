package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// RemoteFlags select the other cluster, like liqoctl's --remote-* flags.
func addRemoteFlags(cmd *cobra.Command, f *ClusterFlags) {
	cmd.Flags().StringVar(&f.Kubeconfig, "remote-kubeconfig", "", "kubeconfig of the remote (provider) cluster")
	cmd.Flags().StringVar(&f.Context, "remote-context", "", "kubeconfig context of the remote (provider) cluster")
	cmd.Flags().StringVar(&f.LiqoNamespace, "remote-liqo-namespace", flows.DefaultLiqoNamespace, "Liqo namespace of the remote cluster")
}

// EngineFlags tune the controllers run in-process when a cluster has none.
type EngineFlags struct {
	NoInProcess       bool
	APIServerOverride string
	CAFile            string
	TrustedCA         bool
}

func addEngineFlags(cmd *cobra.Command, f *EngineFlags) {
	addInProcessFlag(cmd, f)
	addAdvertiseFlags(cmd, f)
}

// addInProcessFlag alone is for commands that give no consumer an
// Identity (unauthenticate): what a provider advertises does not apply.
func addInProcessFlag(cmd *cobra.Command, f *EngineFlags) {
	cmd.Flags().BoolVar(&f.NoInProcess, "no-in-process", false, "fail instead of running the controllers in-process on a cluster without one")
}

// addAdvertiseFlags: what the provider tells a consumer to reach it at.
func addAdvertiseFlags(cmd *cobra.Command, f *EngineFlags) {
	cmd.Flags().StringVar(&f.APIServerOverride, "api-server-override", "", "provider API server URL advertised to the consumer (default: a control-plane Node's address on 6443, as Liqo does; without Node, the provider kubeconfig's server)")
	cmd.Flags().StringVar(&f.CAFile, "ca-override-file", "", "provider CA bundle advertised to the consumer (default: the one in the provider's kubeconfig)")
	cmd.Flags().BoolVar(&f.TrustedCA, "trusted-ca", false, "advertise no CA to the consumer: the provider API server's certificate is publicly trusted (--ca-override-file still wins)")
}

// addPodReachFlag: the commands that give the consumer an Identity dial
// the advertised API server from one of its Pods first, and refuse an
// address they do not reach.
func addPodReachFlag(cmd *cobra.Command, skip *bool) {
	cmd.Flags().BoolVar(skip, "skip-pod-reach-check", false, "do not check, from a short-lived Pod of the consumer, that its Pods reach the provider's advertised API server")
}

func (f EngineFlags) options() (flows.EngineOptions, error) {
	o := flows.EngineOptions{NoInProcess: f.NoInProcess, APIServerOverride: f.APIServerOverride, TrustedCA: f.TrustedCA}
	if f.APIServerOverride != "" {
		if _, err := flows.NormalizeAPIServer(f.APIServerOverride); err != nil {
			return o, usagef("--api-server-override: %v", err)
		}
	}
	if f.CAFile != "" {
		ca, err := flows.ReadCABundle(f.CAFile)
		if err != nil {
			return o, usagef("--ca-override-file: %v", err)
		}
		o.CAOverride = ca
	}
	return o, nil
}

// connectReachable loads a kubeconfig and checks the server answers and
// accepts the credentials, so that problems show as one classified line.
func (o *Options) connectReachable(ctx context.Context, f ClusterFlags) (*flows.Cluster, error) {
	return flows.ConnectReachable(ctx, f.ref())
}

func addRemoteClusterIDFlag(cmd *cobra.Command, id *string, which string) {
	cmd.Flags().StringVar(id, "remote-cluster-id", "", "cluster ID of the "+which)
	_ = cmd.MarkFlagRequired("remote-cluster-id")
}

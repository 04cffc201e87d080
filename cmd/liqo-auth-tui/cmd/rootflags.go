package cmd

import "github.com/spf13/cobra"

// SessionFlags are the root command's flags shared by the wizard and
// --batch: the remote cluster, the role, and the artifacts of manual mode.
type SessionFlags struct {
	Batch           bool
	Remote          ClusterFlags
	Role            string // provider | consumer (manual mode)
	RemoteClusterID string
	Nonce           string
	NonceFile       string
	TenantFile      string
	IdentityFile    string
	// ConsumerFingerprint and ProviderFingerprint pin the other side.
	ConsumerFingerprint, ProviderFingerprint string
	Clipboard                                string
	Engine                                   EngineFlags
	Proxy                                    ProxyFlags
	// Output: --batch with both kubeconfigs prints its result on stdout.
	Output string
	// SkipPodReachCheck: see addPodReachFlag.
	SkipPodReachCheck bool
}

func addSessionFlags(root *cobra.Command, f *SessionFlags) {
	fl := root.Flags()
	fl.BoolVar(&f.Batch, "batch", false, "run without a terminal: both kubeconfigs → whole handshake; one kubeconfig + --role → the next step of that side")
	fl.StringVar(&f.Remote.Kubeconfig, "remote-kubeconfig", "", "kubeconfig of the remote (provider) cluster")
	fl.StringVar(&f.Remote.Context, "remote-context", "", "kubeconfig context of the remote (provider) cluster")
	fl.StringVar(&f.Remote.LiqoNamespace, "remote-liqo-namespace", "liqo", "Liqo namespace of the remote cluster")
	fl.StringVar(&f.Role, "role", "", "your cluster's role when you reach only one cluster: provider or consumer")
	fl.StringVar(&f.RemoteClusterID, "remote-cluster-id", "", "the other cluster's ID (manual mode)")
	fl.StringVar(&f.Nonce, "nonce", "", "consumer: the provider's nonce")
	fl.StringVar(&f.NonceFile, "nonce-file", "", "consumer: file with the provider's nonce (- = stdin)")
	fl.StringVar(&f.TenantFile, "tenant-file", "", "provider: file with the consumer's Tenant (- = stdin)")
	fl.StringVar(&f.IdentityFile, "identity-file", "", "consumer: file with the provider's Identity (- = stdin)")
	addConsumerPinFlag(fl, &f.ConsumerFingerprint)
	addProviderPinFlag(fl, &f.ProviderFingerprint)
	fl.StringVar(&f.Clipboard, "clipboard", "auto", "wizard clipboard: auto, native, osc52 or off")
	fl.StringVarP(&f.Output, "output", "o", "", "--batch with both kubeconfigs: print the result (or the failure) on stdout as yaml or json; step lines stay on stderr")
	addEngineFlags(root, &f.Engine)
	addProxyFlags(root, &f.Proxy, true)
	// Derived only by --batch with both kubeconfigs (ProxyFlags.check).
	root.Flags().Lookup("in-band").Usage += " (--batch with --remote-kubeconfig; the wizard and --role take --proxy-url)"
	addPodReachFlag(root, &f.SkipPodReachCheck)
}

package flows

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Cluster is a connection to one cluster. The front-ends hold it and pass
// it to flows functions; they do not act on it themselves.
type Cluster = kube.Cluster

// ClusterRef selects one cluster like kubectl's flags do.
type ClusterRef struct {
	Kubeconfig string // "" = KUBECONFIG / ~/.kube/config; a leading ~/ is the home folder
	Context    string // "" = the current context
	Namespace  string // Liqo namespace ("" = liqo)
	// ProxyURL is the proxy to reach the API server through when the
	// kubeconfig sets none ("" = none).
	ProxyURL string
}

// DefaultLiqoNamespace is where Liqo lives unless told otherwise.
const DefaultLiqoNamespace = kube.DefaultLiqoNamespace

// ControllerImage is the default image of the in-cluster controller.
const ControllerImage = kube.ControllerImage

// Connect loads the kubeconfig of ref. It does not dial the cluster.
func Connect(ref ClusterRef) (*Cluster, error) {
	return kube.Connect(kube.KubeconfigOptions{Path: ExpandHome(ref.Kubeconfig), Context: ref.Context, LiqoNamespace: ref.Namespace,
		ProxyURL: ref.ProxyURL})
}

// ConnectReachable is Connect, then a check that the server answers and
// accepts the credentials, so that a problem shows as one classified line.
func ConnectReachable(ctx context.Context, ref ClusterRef) (*Cluster, error) {
	c, err := Connect(ref)
	if err != nil {
		return nil, err
	}
	if _, _, err := c.WhoAmI(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// ClusterID reads the cluster's ID (Liqo's cluster-ID ConfigMap).
func ClusterID(ctx context.Context, c *Cluster) (string, error) { return c.ClusterID(ctx) }

// ContextOf is the kubeconfig context c was loaded from ("" = none).
func ContextOf(c *Cluster) string { return c.Context }

// NamespaceOf is c's Liqo namespace.
func NamespaceOf(c *Cluster) string { return c.Namespace }

// ExpandHome reads a typed path starting with ~/ as under the home
// folder, as a shell does.
func ExpandHome(path string) string {
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, path[2:])
		}
	}
	return path
}

// KubeconfigContexts lists a kubeconfig's contexts ("" = KUBECONFIG or
// ~/.kube/config, with kubectl's loading rules) and its current context.
func KubeconfigContexts(kubeconfig string) ([]string, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = ExpandHome(kubeconfig)
	where := kubeconfig
	if where == "" {
		where = "default kubeconfig"
	}
	cfg, err := rules.Load()
	if err != nil {
		return nil, "", fmt.Errorf("reading kubeconfig (%s): %w", where, err)
	}
	names := make([]string, 0, len(cfg.Contexts))
	for name := range cfg.Contexts {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, "", fmt.Errorf("kubeconfig (%s) has no contexts", where)
	}
	return names, cfg.CurrentContext, nil
}

// SilenceAPIWarnings keeps the API servers' warnings (deprecations) off the
// terminal while the wizard owns it.
func SilenceAPIWarnings() { rest.SetDefaultWarningHandler(rest.NoWarnings{}) }

// CheckProxyURL refuses a proxy URL the consumer's kubeconfig could not use
// ("" = no proxy, accepted).
func CheckProxyURL(s string) error {
	_, err := kube.ParseProxyURL(s)
	return err
}

// NormalizeAPIServer checks an API server address given by hand and
// returns it as a URL.
func NormalizeAPIServer(s string) (string, error) { return kube.NormalizeAPIServer(s) }

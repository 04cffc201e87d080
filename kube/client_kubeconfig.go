package kube

import (
	"fmt"
	"net/http"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
)

// KubeconfigOptions select a cluster the way kubectl does: an explicit file
// or the KUBECONFIG merge rules, and an optional context.
type KubeconfigOptions struct {
	Path          string
	Context       string
	LiqoNamespace string
	// Timeout bounds each request (0 = client-go's default: none).
	Timeout time.Duration
	// ProxyURL is the proxy to reach the server through when the kubeconfig
	// sets none (its proxy-url wins); "" = as the kubeconfig says.
	ProxyURL string
}

// Describe names the kubeconfig and context for error messages.
func (o KubeconfigOptions) Describe() string { return kubeconfig.Describe(o.Path, o.Context) }

// Connect loads the kubeconfig and builds the clients. It does not contact
// the API server.
func Connect(o KubeconfigOptions) (*Cluster, error) {
	cfg, current, err := kubeconfig.Load(o.Path, o.Context)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = o.Timeout
	if cfg.Proxy == nil && o.ProxyURL != "" {
		u, err := ParseProxyURL(o.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("proxy URL: %w", err)
		}
		cfg.Proxy = http.ProxyURL(u)
	}
	c, err := NewCluster(cfg, o.LiqoNamespace)
	if err != nil {
		return nil, err
	}
	c.Context = current
	return c, nil
}

package cmd

import (
	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// ProxyFlags are --proxy-url and --in-band: how the consumer reaches the
// provider's API server (the Tenant's spec.proxyURL, §5.2, and the
// proxy-url of the consumer's kubeconfig Secret, §8).
type ProxyFlags struct {
	ProxyURL string
	InBand   bool
}

// addProxyFlags adds --proxy-url and --in-band; reachesProvider says the
// command itself connects to the provider (authenticate), through the
// proxy too.
func addProxyFlags(cmd *cobra.Command, f *ProxyFlags, reachesProvider bool) {
	help := "proxy through which the consumer reaches the provider's API server, http://HOST:PORT (http, https or socks5): " +
		"written in the Tenant (spec.proxyURL) and in the consumer's kubeconfig Secret (proxy-url), so verify goes through it too"
	if reachesProvider {
		help += "; this command also reaches the provider through it, unless the provider's kubeconfig sets its own proxy-url"
	}
	cmd.Flags().StringVar(&f.ProxyURL, "proxy-url", "", help)
	cmd.Flags().BoolVar(&f.InBand, "in-band", false,
		"Liqo's in-band peering (reach the provider's API server over Liqo's network fabric): needs Liqo's networking; "+
			"here only accepted with --proxy-url, the in-band proxy's address")
}

// check validates the flags, before anything is written or dialed: a bad
// --proxy-url, or --in-band alone (explained), is a usage error.
func (f ProxyFlags) check() error {
	if err := flows.CheckProxyURL(f.ProxyURL); err != nil {
		return usagef("--proxy-url: %v", err)
	}
	if f.InBand && f.ProxyURL == "" {
		return usagef("%s", handshake.InBand(""))
	}
	return nil
}

// resolve checks the flags and returns the proxy URL ("" = none), telling
// p that --in-band is served by --proxy-url.
func (f ProxyFlags) resolve(p *Printer) (string, error) {
	if err := f.check(); err != nil {
		return "", err
	}
	if f.InBand {
		p.Info(handshake.NoScope, "%s", handshake.InBand(f.ProxyURL))
	}
	return f.ProxyURL, nil
}

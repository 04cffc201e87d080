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
// proxy too, and so may derive the in-band proxy's address.
func addProxyFlags(cmd *cobra.Command, f *ProxyFlags, reachesProvider bool) {
	help := "proxy through which the consumer reaches the provider's API server, http://HOST:PORT (http, https or socks5): " +
		"written in the Tenant (spec.proxyURL) and in the consumer's kubeconfig Secret (proxy-url), so verify goes through it too"
	inBand := "Liqo's in-band peering (reach the provider's API server over Liqo's network fabric): needs Liqo's networking connected; "
	if reachesProvider {
		help += "; this command also reaches the provider through it, unless the provider's kubeconfig sets its own proxy-url"
		inBand += "without --proxy-url the proxy is derived as liqoctl does, http://<the provider's api-server-proxy IP, " +
			"remapped through the consumer's networking Configuration>:8118, and this command reaches the provider directly"
	} else {
		inBand += "here only accepted with --proxy-url, the in-band proxy's address"
	}
	cmd.Flags().StringVar(&f.ProxyURL, "proxy-url", "", help)
	cmd.Flags().BoolVar(&f.InBand, "in-band", false, inBand)
}

// check validates the flags, before anything is written or dialed: a bad
// --proxy-url is a usage error, and so is --in-band alone (explained)
// unless the command reaches both clusters (bothClusters), where the
// flows derive the in-band proxy.
func (f ProxyFlags) check(bothClusters bool) error {
	if err := flows.CheckProxyURL(f.ProxyURL); err != nil {
		return usagef("--proxy-url: %v", err)
	}
	if f.InBand && f.ProxyURL == "" && !bothClusters {
		return usagef("%s", handshake.InBand(""))
	}
	return nil
}

// derive tells whether the flows derive the in-band proxy: --in-band
// without --proxy-url.
func (f ProxyFlags) derive() bool { return f.InBand && f.ProxyURL == "" }

// resolve checks the flags and returns the proxy URL ("" = none, or
// derived when derive()), telling p that --in-band is served by
// --proxy-url.
func (f ProxyFlags) resolve(p *Printer, bothClusters bool) (string, error) {
	if err := f.check(bothClusters); err != nil {
		return "", err
	}
	if f.InBand && f.ProxyURL != "" {
		p.Info(handshake.NoScope, "%s", handshake.InBand(f.ProxyURL))
	}
	return f.ProxyURL, nil
}

package handshake

// inBandMeaning says what Liqo's --in-band does and why this tool cannot
// do it alone.
const inBandMeaning = "--in-band is Liqo's in-band peering: the consumer reaches the provider's API server " +
	"through Liqo's network fabric (a proxy in the provider, exposed over the Liqo tunnel, whose address " +
	"liqoctl writes in the Tenant's proxyURL), so it needs Liqo's networking connected between the two " +
	"clusters, which this tool does not set up"

// InBand is the one line any front end gives when asked for Liqo's
// --in-band: with no proxyURL, where its address cannot be derived (a
// command that does not reach both clusters), what it means and what to
// do instead (the caller refuses to go on); with one, that this proxy is
// used.
func InBand(proxyURL string) string {
	if proxyURL == "" {
		return inBandMeaning + "; only a command that reaches both clusters (authenticate, or --batch with --remote-kubeconfig) " +
			"derives the proxy's address from Liqo's networking objects, as liqoctl does: here give the address of that proxy, " +
			"or of any proxy the consumer reaches the provider through, with --proxy-url http://HOST:PORT"
	}
	return inBandMeaning + ": using --proxy-url " + proxyURL + " as the Tenant's proxyURL"
}

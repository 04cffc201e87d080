package flows

import (
	"context"
	"fmt"
	"net"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Liqo's in-band peering (liqoctl authenticate --in-band): the consumer
// reaches the provider's API server through the provider's API server
// proxy, over Liqo's network fabric. Without --proxy-url liqoctl derives
// the proxy's address from Liqo's networking objects (§9.1 step 8b), and
// so does InBandProxyURL.

// InBandUnavailableError is --in-band without --proxy-url where Liqo's
// networking objects that give the proxy's address are missing: nothing is
// written.
type InBandUnavailableError struct {
	Problem string // what is missing, naming the cluster
}

func (e *InBandUnavailableError) Error() string { return e.Problem + hintSeparator + e.Hint() }

// Hint is what to do: give the address, or connect the networking first.
func (e *InBandUnavailableError) Hint() string {
	return "pass --proxy-url http://HOST:PORT with a proxy the consumer reaches the provider through, " +
		"or connect Liqo's networking between the two clusters first (liqoctl peer, or liqoctl network connect) and run again"
}

// InBandProxyURL is the proxy URL liqoctl writes for --in-band: the
// provider's IP api-server-proxy (status.ip, its proxy Service's ClusterIP
// remapped into the provider's external CIDR) remapped again through the
// consumer's networking Configuration for the provider, port 8118:
// http://<address>:8118. Missing objects are an *InBandUnavailableError.
func InBandProxyURL(ctx context.Context, consumer, provider *kube.Cluster, providerID string) (string, error) {
	ip, err := provider.APIServerProxyIP(ctx)
	switch {
	case kube.IsNotFound(err):
		return "", &InBandUnavailableError{Problem: fmt.Sprintf(
			"the provider has no IP %s in namespace %s: Liqo's networking module, which keeps it for its API server proxy, does not run there",
			kube.APIServerProxyIPName, provider.Namespace)}
	case err != nil:
		return "", Scoped(handshake.Remote, fmt.Errorf("reading the provider's IP %s/%s: %w", provider.Namespace, kube.APIServerProxyIPName, err))
	case ip.Remapped == "":
		return "", &InBandUnavailableError{Problem: fmt.Sprintf(
			"the provider's IP %s/%s has no remapped address yet (status.ip): is Liqo's networking module working there?",
			provider.Namespace, kube.APIServerProxyIPName)}
	}
	conf, err := consumer.NetworkConfigurationFor(ctx, providerID)
	switch {
	case kube.IsNotFound(err):
		return "", &InBandUnavailableError{Problem: fmt.Sprintf(
			"the consumer has no networking Configuration for provider %s: Liqo's networking between the two clusters is not connected", providerID)}
	case err != nil:
		return "", Scoped(handshake.Local, fmt.Errorf("reading the consumer's networking Configuration for provider %s: %w", providerID, err))
	}
	addr, err := kube.RemapAddress(conf, ip.Remapped)
	if err != nil {
		return "", &InBandUnavailableError{Problem: fmt.Sprintf(
			"the consumer's networking Configuration %s/%s for provider %s cannot remap %s: %v", conf.Namespace, conf.Name, providerID, ip.Remapped, err)}
	}
	return "http://" + net.JoinHostPort(addr, kube.InBandProxyPort), nil
}

// InBandProxy tells whether proxyURL goes through Liqo's network fabric:
// its host is an address by which the consumer reaches providerID across
// the tunnel (in a remapped CIDR of the consumer's Configuration for it),
// as the in-band proxy's is. false when that cannot be told.
func InBandProxy(ctx context.Context, consumer *kube.Cluster, providerID, proxyURL string) bool {
	u, err := kube.ParseProxyURL(proxyURL)
	if err != nil || u == nil || providerID == "" {
		return false
	}
	conf, err := consumer.NetworkConfigurationFor(ctx, providerID)
	return err == nil && kube.InRemappedCIDRs(conf, u.Hostname())
}

// inBandOnly says that apiServer, not answering from this machine through
// the in-band proxy, is reachable only inside Liqo's network fabric.
func inBandOnly(apiServer, proxyURL string) string {
	return fmt.Sprintf("%s does not answer from this machine through Liqo's in-band proxy %s, which is reachable only inside Liqo's network fabric "+
		"(from the consumer's Pods, across the tunnel): expected here, not a failure", apiServer, redactedProxy(proxyURL))
}

// redactedProxy is proxyURL without its password, for messages.
func redactedProxy(proxyURL string) string {
	if u, err := kube.ParseProxyURL(proxyURL); err == nil && u != nil {
		return u.Redacted()
	}
	return proxyURL
}

// ReasonInBandOnly is the reason of the note given instead of a warning or
// a failure when the provider is reached through an in-band proxy that
// does not answer from this machine.
const ReasonInBandOnly = "InBandFabricOnly"

// inBandProxyStep derives the proxy for --in-band (InBandProxyURL) into
// proxyURL, reading only.
func inBandProxyStep(consumer, provider *kube.Cluster, providerID func() string, proxyURL *string) Step {
	return Step{ID: "in-band-proxy", Scope: handshake.NoScope, Title: "Deriving the in-band proxy from Liqo's networking",
		Failure: "Unable to use --in-band without --proxy-url",
		Command: "kubectl get ip api-server-proxy -n liqo -o jsonpath='{.status.ip}' (provider); kubectl get configurations -n liqo-tenant-<provider> (consumer)",
		Run: func(ctx context.Context) (err error) {
			*proxyURL, err = InBandProxyURL(ctx, consumer, provider, providerID())
			return err
		},
		Outcome: func() string {
			return "In-band proxy " + *proxyURL + ": the provider's API server proxy, as the consumer reaches it over Liqo's network fabric"
		}}
}

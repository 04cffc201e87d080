package kube

import (
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// PairProblem says, in one line, why a consumer and a provider cannot
// authenticate and what to do; "" when they can or when it cannot be told
// (a generation or a 0.x line unknown: the handshake will tell).
//
// v1 and this tool's `init` speak the v1 protocol; Liqo 0.x the shared-token
// one, and its lines v0.3 and v0.4+ send identity requests the other misreads
// (liqo-legacy-auth.md §5). A provider running 0.x is served from a consumer
// without Liqo (this tool then acts as the 0.x consumer). v0.2 issues
// ServiceAccount-token identities: explained, not supported (§6).
func PairProblem(consumerName string, consumer LiqoRelease, providerName string, provider LiqoRelease) string {
	c := fmt.Sprintf("consumer %s runs %s", consumerName, consumer)
	p := fmt.Sprintf("provider %s runs %s", providerName, provider)
	for _, side := range []struct {
		name string
		r    LiqoRelease
	}{{consumerName, consumer}, {providerName, provider}} {
		if side.r.Flavor == FlavorLiqo0x && side.r.Line == peerinfo.V02 {
			return fmt.Sprintf("%s runs %s, whose identities are ServiceAccount tokens (Kubernetes older than 1.24): not supported; "+
				"upgrade %s to Liqo v0.3.0 or later (v0.10.3 is the last 0.x) or to Liqo v1", side.name, side.r, side.name)
		}
	}
	if consumer.Flavor == FlavorUnknown || provider.Flavor == FlavorUnknown {
		return ""
	}
	switch {
	case provider.Flavor == FlavorLiqo0x && consumer.Flavor == FlavorV1:
		return c + ", " + p + ": they authenticate differently; upgrade " + providerName +
			" to Liqo v1, or authenticate from a consumer without Liqo (this tool then acts as the 0.x consumer)"
	case provider.Flavor == FlavorLiqo0x && consumer.Flavor == FlavorLiqo0x:
		if consumer.Line != provider.Line && consumer.Line != peerinfo.LineUnknown && provider.Line != peerinfo.LineUnknown {
			older := consumerName
			if provider.Line == peerinfo.V03 {
				older = providerName
			}
			return c + ", " + p + ": v0.3 and v0.4+ send identity requests in different formats and cannot authenticate each other; upgrade " +
				older + " to Liqo v0.4.0 or later (v0.10.3 is the last 0.x)"
		}
	case consumer.Flavor == FlavorLiqo0x && (provider.Flavor == FlavorV1 || provider.Flavor == FlavorToolInit):
		return c + ", " + p + ": they authenticate differently; upgrade " + consumerName + " to Liqo v1"
	case consumer.Flavor == FlavorLiqo0x && provider.Flavor == FlavorNone:
		return c + ", " + p + ": Liqo 0.x authenticates only with a Liqo 0.x authentication server; install Liqo 0.x (the same line) on " +
			providerName + " or upgrade " + consumerName + " to Liqo v1"
	}
	return ""
}

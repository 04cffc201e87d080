package flows

import (
	"context"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// ClusterInfo is what a probe learns about a cluster (`info -o json`
// prints it as is).
type ClusterInfo = kube.Info

// LiqoRelease is which Liqo generation, and which 0.x release, a cluster runs.
type LiqoRelease = kube.LiqoRelease

// Probe checks that the cluster answers and reads what the handshake
// needs; what the user may not read stays empty.
func Probe(ctx context.Context, c *Cluster) (*ClusterInfo, error) { return c.Probe(ctx) }

// RunsLiqo0x tells whether a probed cluster runs Liqo 0.x.
func RunsLiqo0x(r LiqoRelease) bool { return r.Flavor == kube.FlavorLiqo0x }

// ReleaseOf rebuilds a release from the words a probe gave (generation,
// version, line): what a front-end kept of it.
func ReleaseOf(generation, version, line string) LiqoRelease {
	g := kube.LiqoFlavor(generation)
	if g == "" {
		g = kube.FlavorUnknown
	}
	return LiqoRelease{Flavor: g, Version: version, Line: peerinfo.Line(line)}
}

// FlavorLine says which Liqo (v1, 0.x, none) a probed cluster runs: the
// same words in `info` and on the wizard's detect screen.
func FlavorLine(info *ClusterInfo) string {
	r := info.LiqoRelease
	switch r.Flavor {
	case kube.FlavorV1:
		return "Liqo v1"
	case kube.FlavorToolInit:
		return "no Liqo: authentication by liqo-auth-tui (init)"
	case kube.FlavorNone:
		return "no Liqo, no authentication installed yet"
	case kube.FlavorLiqo0x:
		version := r.Version
		switch {
		case version != "":
		case r.Line != peerinfo.LineUnknown:
			version = string(r.Line) + " line"
		case info.Restricted:
			version = "version not visible to this user"
		default:
			version = "version unknown"
		}
		line := "Liqo 0.x (" + version + ")"
		if Liqo0xUnsupported(r) != "" {
			line += ": " + handshake.Liqo02Unsupported
		}
		return line
	}
	return "Liqo generation not visible to this user"
}

// Liqo0xUnsupported is why this tool cannot authenticate with a cluster
// running this Liqo 0.x release on its own, "" when it can.
func Liqo0xUnsupported(r LiqoRelease) string {
	if r.Flavor == kube.FlavorLiqo0x && r.Line == peerinfo.V02 {
		release := r.Version
		if release == "" {
			release = string(r.Line)
		}
		return "this cluster runs Liqo " + release + ": " + handshake.Liqo02Unsupported
	}
	return ""
}

// PairProblem says in one line why a consumer and a provider cannot
// authenticate (their Liqo generations) and what to do; "" when they can.
// The names are how to call each cluster in it.
func PairProblem(consumerName string, consumer LiqoRelease, providerName string, provider LiqoRelease) string {
	return kube.PairProblem(consumerName, consumer, providerName, provider)
}

// KeyFingerprint is the fingerprint of c's authentication key.
func KeyFingerprint(ctx context.Context, c *Cluster) (string, error) {
	pub, _, err := c.PublicKey(ctx)
	if err != nil {
		return "", err
	}
	return authcrypto.Fingerprint(pub)
}

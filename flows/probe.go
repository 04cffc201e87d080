package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// ClusterInfo is what a probe learns about a cluster (`info -o json`
// prints it as is).
type ClusterInfo = kube.Info

// LiqoRelease is which Liqo generation, and which 0.x release, a cluster runs.
type LiqoRelease = kube.LiqoRelease

// Probe checks that the cluster answers and reads what the handshake
// needs; what the user may not read stays empty.
func Probe(ctx context.Context, c *Cluster) (*ClusterInfo, error) { return c.Probe(ctx) }

// RunsLegacy tells whether a probed cluster runs Liqo 0.x.
func RunsLegacy(r LiqoRelease) bool { return r.Generation == kube.GenerationLegacy }

// ReleaseOf rebuilds a release from the words a probe gave (generation,
// version, line): what a front-end kept of it.
func ReleaseOf(generation, version, line string) LiqoRelease {
	g := kube.Generation(generation)
	if g == "" {
		g = kube.GenerationUnknown
	}
	return LiqoRelease{Generation: g, Version: version, Line: kube.LegacyLine(line)}
}

// GenerationLine says which Liqo generation a probed cluster runs: the
// same words in `info` and on the wizard's detect screen.
func GenerationLine(info *ClusterInfo) string {
	r := info.LiqoRelease
	switch r.Generation {
	case kube.GenerationV1:
		return "Liqo v1"
	case kube.GenerationOurs:
		return "no Liqo: authentication by liqo-auth-tui (init)"
	case kube.GenerationNone:
		return "no Liqo, no authentication installed yet"
	case kube.GenerationLegacy:
		version := r.Version
		switch {
		case version != "":
		case r.Line != kube.LegacyLineUnknown:
			version = string(r.Line) + " line"
		case info.Restricted:
			version = "version not visible to this user"
		default:
			version = "version unknown"
		}
		line := "Liqo 0.x (" + version + ")"
		if LegacyUnsupported(r) != "" {
			line += ": " + handshake.Liqo02Unsupported
		}
		return line
	}
	return "Liqo generation not visible to this user"
}

// LegacyUnsupported is why this tool cannot authenticate with a cluster
// running this Liqo 0.x release on its own, "" when it can.
func LegacyUnsupported(r LiqoRelease) string {
	if r.Generation == kube.GenerationLegacy && r.Line == kube.LegacyV02 {
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

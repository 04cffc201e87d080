package wizardbackend

import (
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// PairProblem applies kube.PairProblem to what the detect screen probed.
func (b *Backend) PairProblem(consumer, provider *tui.ClusterInfo) string {
	return kube.PairProblem(clusterName(consumer), releaseOf(consumer), clusterName(provider), releaseOf(provider))
}

func releaseOf(info *tui.ClusterInfo) kube.LiqoRelease {
	g := kube.LiqoFlavor(info.LiqoGeneration)
	if g == "" {
		g = kube.FlavorUnknown
	}
	return kube.LiqoRelease{Flavor: g, Version: info.LiqoVersion, Line: peerinfo.Line(info.LiqoLine)}
}

// clusterName names a cluster in the one-line refusal: its ID, else its
// kubeconfig context, else its API server.
func clusterName(info *tui.ClusterInfo) string {
	switch {
	case info.ClusterID != "":
		return info.ClusterID
	case info.Context != "":
		return info.Context
	}
	return info.Server
}

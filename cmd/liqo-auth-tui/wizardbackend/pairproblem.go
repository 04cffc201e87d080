package wizardbackend

import (
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// PairProblem is flows.PairProblem on what the detect screen probed.
func (b *Backend) PairProblem(consumer, provider *tui.ClusterInfo) string {
	return flows.PairProblem(clusterName(consumer), releaseOf(consumer), clusterName(provider), releaseOf(provider))
}

func releaseOf(info *tui.ClusterInfo) flows.LiqoRelease {
	return flows.ReleaseOf(info.LiqoFlavor, info.LiqoVersion, info.LiqoLine)
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

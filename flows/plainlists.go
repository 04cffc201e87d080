package flows

import (
	clientfeatures "k8s.io/client-go/features"
)

// The informers of this process start with plain lists (client-go's
// WatchListClient off). A streaming list makes the API server prove that its
// watch cache is fresh first, which, for a kind nobody wrote lately, waits
// for its next progress request: up to 100 ms per in-process start, which
// every handshake paid once per side. In-process controllers list a handful
// of objects, which a list at resourceVersion 0 gets at once from the same
// cache (as informers did before Kubernetes 1.35). The in-cluster controller
// does not import flows: it keeps streaming lists, whose memory savings
// matter at its scale.
func init() {
	clientfeatures.ReplaceFeatureGates(plainLists{clientfeatures.FeatureGates()})
}

type plainLists struct{ clientfeatures.Gates }

func (g plainLists) Enabled(f clientfeatures.Feature) bool {
	return f != clientfeatures.WatchListClient && g.Gates.Enabled(f)
}

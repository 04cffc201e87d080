package flows

import (
	"context"
	"fmt"
)

// PairLine names the two clusters of an automated flow, read before
// anything is written, so that an admin sees which way the handshake will
// go ("consumer = c1 (context kind-c1), provider = p1 (context kind-p1)"):
// swapped kubeconfigs authenticate the other way round, silently otherwise.
func PairLine(ctx context.Context, consumer, provider *Cluster) string {
	return fmt.Sprintf("consumer = %s, provider = %s", clusterLabel(ctx, consumer), clusterLabel(ctx, provider))
}

// clusterLabel is a cluster's ID and where its kubeconfig points; a
// cluster whose ID cannot be read yet is named by its kubeconfig alone
// (the flow says why it cannot be read).
func clusterLabel(ctx context.Context, c *Cluster) string {
	where := "context " + c.Context
	if c.Context == "" {
		where = "server " + c.Server
	}
	id, err := c.ClusterID(ctx)
	if err != nil {
		return "cluster ID unknown (" + where + ")"
	}
	return id + " (" + where + ")"
}

package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// ClusterChecks runs doctor's cluster checks alone on c: what a
// kubeconfig that may not list the overview's objects (a peering user's,
// which Doctor's lists refuse) is still checked for.
func ClusterChecks(ctx context.Context, c *kube.Cluster) ([]Check, error) {
	release, err := c.DetectRelease(ctx)
	if err != nil {
		return nil, err
	}
	d := &doctorRun{local: c, now: OverviewOptions{}.now(), localObjects: &peeringObjects{release: release}}
	var out []Check
	for _, check := range clusterCheckers {
		out = append(out, check(ctx, d, c, handshake.Local)...)
	}
	return out, nil
}

package doctor

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
)

// reachablePodsID is the check that the consumer's Pods, where Liqo's
// components use the kubeconfig Secret, reach the advertised API server.
const reachablePodsID = "api-server-reachable-from-pods"

// podReachCheck dials the kubeconfig's API server from a short-lived Pod
// of the consumer, once it answered from here. No check on a consumer
// without Nodes (no Pod's view can differ from this machine's).
func podReachCheck(ctx context.Context, p *pair, cfg *rest.Config, kubeconfig []byte) (Check, bool) {
	const title = "advertised API server reachable from the consumer's Pods"
	r, err := flows.CheckFromConsumerPods(ctx, p.consumer.cluster, cfg.Host, cfg.CAData, access.ProxyURLOf(kubeconfig))
	switch {
	case err != nil:
		return failed(reachablePodsID, title, "not checked: "+err.Error(), ""), true
	case r.NoNode:
		return Check{}, false
	case !r.Checked:
		// Unknown is not a failure: the consumer may reach it.
		return passed(reachablePodsID, title, "not checked: "+r.Why), true
	case r.Reachable:
		return passed(reachablePodsID, title, fmt.Sprintf("%s, from Pod %s on Node %s", cfg.Host, r.Pod, r.Node)), true
	}
	return failed(reachablePodsID, title,
		fmt.Sprintf("%s is reachable from here, NOT from the consumer's Pods: %s (checked from Pod %s on Node %s); Liqo's components there use this kubeconfig",
			cfg.Host, r.Why, r.Pod, r.Node),
		bothSidesCommand("authenticate")+" --api-server-override https://<address the consumer's Pods reach>"), true
}

package wizardbackend

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The wizard's refusal is kube.PairProblem's line, with the clusters named
// by ID (or context) and an untold generation taken as unknown (allowed).
func TestPairProblemNamesTheClusters(t *testing.T) {
	b := &Backend{}
	v1 := &tui.ClusterInfo{ClusterID: "consumer-1", LiqoFlavor: "v1"}
	liqo0xProvider := &tui.ClusterInfo{Context: "old-provider", LiqoFlavor: "0.x", LiqoVersion: "v0.10.3", LiqoLine: "v0.4+"}
	assert.Equal(t, "consumer consumer-1 runs Liqo v1, provider old-provider runs Liqo 0.x (v0.10.3): they authenticate differently; "+
		"upgrade old-provider to Liqo v1, or authenticate from a consumer without Liqo (this tool then acts as the 0.x consumer)",
		b.PairProblem(v1, liqo0xProvider))
	assert.Empty(t, b.PairProblem(&tui.ClusterInfo{ClusterID: "consumer-1", LiqoFlavor: "none"}, liqo0xProvider))
	assert.Empty(t, b.PairProblem(&tui.ClusterInfo{ClusterID: "consumer-1"}, liqo0xProvider), "a generation not told is unknown")
}

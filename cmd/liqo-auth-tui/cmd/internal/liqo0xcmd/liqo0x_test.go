//go:build cluster

package liqo0xcmd_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// liqo0xLab is the provider and the consumer running Liqo v0.10.1 and the
// "plain" cluster prepared by `init`, where this tool is the 0.x consumer.
type liqo0xLab struct {
	provider, consumer, plain *lab.Cluster
	prov, cons, pl            *kube.Cluster
	token                     string
}

// The Liqo 0.x commands as an admin types them. Liqo's processes start
// once (they take most of the time) and serve every subtest; each subtest
// that authenticates removes what it left on both sides when it ends, as
// the provider issues one identity per consumer cluster ID.
func TestLiqo0xCommands(t *testing.T) {
	p := startLiqo0xLab(t)

	// Each step gets its own bounded context: starting Liqo takes much of one.
	step := func(name string, f func(t *testing.T, ctx context.Context)) {
		t.Run(name, func(t *testing.T) { f(t, labtest.Context(t)) })
	}
	step("liqo consumer/manual", func(t *testing.T, ctx context.Context) { testManualBetweenLiqoClusters(t, ctx, p) })
	step("liqo consumer/automated", func(t *testing.T, ctx context.Context) { testAutomatedBetweenLiqoClusters(t, ctx, p) })
	step("liqo consumer/wrong token", func(t *testing.T, ctx context.Context) { testWrongToken(t, ctx, p, p.consumer, p.cons) })
	step("liqo consumer/bad input", func(t *testing.T, ctx context.Context) { testBadInput(t, ctx, p, p.consumer, p.cons, consumerID) })
	step("tool consumer/kubeconfig-out", func(t *testing.T, ctx context.Context) { testToolConsumerKubeconfigOut(t, ctx, p) })
	step("tool consumer/batch", func(t *testing.T, ctx context.Context) { testToolConsumerBatch(t, ctx, p) })
	step("tool consumer/wrong token", func(t *testing.T, ctx context.Context) { testWrongToken(t, ctx, p, p.plain, p.pl) })
	step("tool consumer/second request", func(t *testing.T, ctx context.Context) { testSecondRequest(t, ctx, p) })
	step("tool consumer/bad input", func(t *testing.T, ctx context.Context) { testBadInput(t, ctx, p, p.plain, p.pl, plainID) })
	// Late: it gives the provider a liqo-auth Deployment that says
	// authentication is off, which every later command would warn about.
	step("authentication disabled", func(t *testing.T, ctx context.Context) { testAuthenticationDisabled(t, ctx, p) })
	// Last of all: it makes "plain" a Liqo v1 cluster.
	step("v1 consumer refused", func(t *testing.T, ctx context.Context) { testV1ConsumerRefused(t, ctx, p) })
}

func startLiqo0xLab(t *testing.T) *liqo0xLab {
	t.Helper()
	cs := testLab.Clusters(t)
	start := time.Now()
	// One bounded context each: on a busy machine one start takes most of one.
	realliqo0x.StartCluster(t, labtest.Context(t), cs[0], providerID, providerName, false)
	realliqo0x.StartCluster(t, labtest.Context(t), cs[1], consumerID, consumerName, true)
	ctx := labtest.Context(t)
	t.Logf("timing: Liqo %s running on provider and consumer in %s", realliqo0x.LiqoVersion, time.Since(start).Round(time.Millisecond))
	p := &liqo0xLab{provider: cs[0], consumer: cs[1], plain: cs[2], prov: client(t, cs[0]), cons: client(t, cs[1]), pl: client(t, cs[2])}
	// Registered after StartCluster: they run while Liqo still runs. Also
	// run now: nothing of an earlier run may decide what these tests see.
	t.Cleanup(p.cleanLiqo(t))
	t.Cleanup(p.cleanTool(t))
	p.cleanLiqo(t)()
	p.cleanTool(t)()
	init := runOK(t, "init", "--kubeconfig", p.plain.KubeconfigPath, "--cluster-id", plainID)
	require.Contains(t, init.err, plainID)
	token, err := realliqo0x.AuthToken(ctx, cs[0].Config)
	require.NoError(t, err)
	p.token = token
	return p
}

// cleanLiqo removes what an authentication between the Liqo pair left.
func (p *liqo0xLab) cleanLiqo(t *testing.T) func() {
	return func() { realliqo0x.CleanupPair(t, p.provider.Config, p.consumer.Config, providerID, consumerID) }
}

// cleanTool removes what this tool's authentication of "plain" left.
func (p *liqo0xLab) cleanTool(t *testing.T) func() {
	return func() { realliqo0x.CleanupPair(t, p.provider.Config, p.plain.Config, providerID, plainID) }
}

// generate runs generate peer-info on the provider into a file.
func generate(t *testing.T, provider *lab.Cluster, args ...string) (string, result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "peer-info")
	r := runOK(t, append([]string{"generate", "peer-info", "--kubeconfig", provider.KubeconfigPath, "--output-file", file}, args...)...)
	return file, r
}

// requireVerifyShowsLiqo0xPermissions: verify on a 0.x identity must show
// what Liqo 0.x grants it (liqo-remote-peering-basic: ResourceRequests in
// its tenant namespace), not Liqo v1's permissions, all denied.
func requireVerifyShowsLiqo0xPermissions(t *testing.T, v result, tenant string) {
	t.Helper()
	assert.Contains(t, v.out, "Allowed (14)", "get…delete on resourcerequests and resourcerequests/status")
	assert.Contains(t, v.out, "create resourcerequests.discovery.liqo.io -n "+tenant)
	assert.Contains(t, v.out, "update resourcerequests.discovery.liqo.io/status -n "+tenant)
	assert.NotContains(t, v.out, "renews.authentication.liqo.io", "no Liqo v1 check for a 0.x identity")
	assert.Regexp(t, `Denied \(4\)`, v.out, "the negatives: other namespaces, Secrets, namespaces, pods")
}

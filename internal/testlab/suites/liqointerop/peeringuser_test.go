//go:build cluster

package liqointerop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// asPeeringUser generates, with the provider's admin, a peering user for
// consumerID and returns the provider as that user sees it: the
// kubeconfig the consumer's admin gets instead of the provider's admin one.
// apiServer is the kubeconfig's server where the provider's address cannot
// be found (Liqo in the lab runs with no Deployment and no Node: its admin
// gives it, as with liqoctl generate peering-user).
func asPeeringUser(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID, apiServer string) *kube.Cluster {
	t.Helper()
	user, err := flows.GeneratePeeringUser(ctx, provider, consumerID, flows.PeeringUserOptions{APIServerOverride: apiServer}, nil)
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(user.Kubeconfig)
	require.NoError(t, err)
	restricted, err := kube.NewCluster(cfg, provider.Namespace)
	require.NoError(t, err)
	return restricted
}

// The consumer's admin holds only a peering user's kubeconfig of a Liqo
// provider of every release (made as liqoctl generate peering-user makes
// it, on Liqo's cluster): this project's consumer authenticates with it,
// Liqo's reconcilers serving the provider, and the resulting kubeconfig
// gets in as the consumer.
func TestOurConsumerPeeringUserLiqoProvider(t *testing.T) {
	forEachRelease(t, func(t *testing.T, release string) {
		p := startPair(t, release, testTimeout, liqoProvides, "liqo-pu-provider", "ours-pu-consumer")
		ctx, consumer, liqoID, ourID := p.ctx, p.ours, p.liqoID, p.ourID
		provider := asPeeringUser(t, ctx, p.liqo, ourID, p.liqoLab.Config.Host)

		var n notes
		res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, n.sink)
		require.NoError(t, err)
		assert.Equal(t, liqoID, res.ProviderID)
		assert.Contains(t, n.all(), "provider side served by "+string(flows.EngineLiqo))
		v, err := flows.Verify(ctx, consumer, liqoID, nil)
		require.NoError(t, err)
		assert.Equal(t, ourID, v.User)
		assert.Contains(t, v.Groups, "liqo.io")
	})
}

// A Liqo consumer of every release with a peering user's kubeconfig of this
// project's provider, served by its controller (a peering user may not run
// one in-process): the handshake completes and the kubeconfig Liqo's
// Identity controller makes gets in as the consumer.
func TestLiqoConsumerPeeringUserOurProvider(t *testing.T) {
	forEachRelease(t, func(t *testing.T, release string) {
		p := startPair(t, release, testTimeout, liqoConsumes, "liqo-pu-consumer", "ours-pu-provider")
		ctx, consumer, liqoID, ourID := p.ctx, p.liqo, p.liqoID, p.ourID
		liqotest.RunOurManager(t, ctx, p.ours, controller.Options{Provider: true, APIServerOverride: p.ourLab.Config.Host})
		provider := asPeeringUser(t, ctx, p.ours, liqoID, "")

		res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
		require.NoError(t, err)
		assert.Equal(t, liqoID, res.ConsumerID)
		assert.Equal(t, flows.EngineLiqo, res.ConsumerEngine)
		v, err := flows.Verify(ctx, consumer, ourID, nil)
		require.NoError(t, err)
		assert.Equal(t, liqoID, v.User)
		assert.Contains(t, v.Groups, "liqo.io")
	})
}

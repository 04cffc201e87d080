//go:build cluster

package kube_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// On a cluster without Liqo's networking API (no ipam.liqo.io, no
// networking.liqo.io), both reads of in-band peering are NotFound, as a
// missing object is: the flows refuse --in-band alone the same way.
func TestLiqoNetworkingReadsWithoutTheAPI(t *testing.T) {
	ctx := labtest.Context(t)
	c, err := kube.NewCluster(clusters(t)[0].Config, "liqo-nonet")
	require.NoError(t, err)
	for _, group := range []string{kube.LiqoIPs.Group, kube.LiqoConfigurations.Group} {
		served, err := c.ServesGroup(ctx, group)
		require.NoError(t, err)
		require.False(t, served, "this lab cluster must not serve %s", group)
	}
	_, err = c.APIServerProxyIP(ctx)
	assert.True(t, kube.IsNotFound(err), "%v", err)

	// No tenant namespace for the peer, then one without the API.
	_, err = c.NetworkConfigurationFor(ctx, "nonet-peer")
	assert.True(t, kube.IsNotFound(err), "%v", err)
	_, _, err = c.EnsureTenantNamespace(ctx, "nonet-peer")
	require.NoError(t, err)
	_, err = c.NetworkConfigurationFor(ctx, "nonet-peer")
	assert.True(t, kube.IsNotFound(err), "%v", err)
}

package liqo0x_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" +
	"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

func testPeerInfo() *peerinfo.Info {
	return &peerinfo.Info{ClusterID: "4f1c2b8e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", ClusterName: "milan",
		AuthURL: "https://10.0.0.5:30443", Token: testToken, Version: "v0.10.3", Line: peerinfo.V04}
}

// liqoctl's equivalent follows the release line: v0.3's `add cluster`,
// v0.4+'s `peer out-of-band` (§4); masking leaves the original intact.
func TestLiqoctlPeerCommand(t *testing.T) {
	info := testPeerInfo()
	assert.Equal(t, "liqoctl peer out-of-band milan --auth-url https://10.0.0.5:30443 --cluster-id "+info.ClusterID+" --auth-token "+testToken,
		liqo0x.LiqoctlPeerCommand(info))
	info.Line = peerinfo.V03
	assert.Equal(t, "liqoctl add cluster milan --auth-url https://10.0.0.5:30443 --id "+info.ClusterID+" --token "+testToken,
		liqo0x.LiqoctlPeerCommand(info))
	info.Line, info.ClusterName = peerinfo.LineUnknown, ""
	assert.True(t, strings.HasPrefix(liqo0x.LiqoctlPeerCommand(info), "liqoctl peer out-of-band "+info.ClusterID+" "))

	masked := liqo0x.LiqoctlPeerCommand(liqo0x.MaskedPeerInfo(info))
	assert.NotContains(t, masked, testToken)
	assert.Contains(t, masked, peerinfo.MaskToken(testToken))
	assert.Equal(t, testToken, info.Token, "the original keeps its token")
}

func TestLiqo0xClusterName(t *testing.T) {
	assert.NoError(t, liqo0x.ValidateClusterName("rome"))
	assert.ErrorContains(t, liqo0x.ValidateClusterName("Rome"), "DNS label")
	assert.ErrorContains(t, liqo0x.ValidateClusterName(strings.Repeat("a", 45)), "at most 44")
	id := "4f1c2b8e-1d2a-4c3b-9e8f-0a1b2c3d4e5f-0123456" // 44th character is '-'
	name := liqo0x.DefaultClusterName(id)
	assert.NoError(t, liqo0x.ValidateClusterName(name))
	assert.True(t, strings.HasPrefix(id, name))
	assert.Equal(t, "short-id", liqo0x.DefaultClusterName("short-id"))
}

// The cleanup a missing side's admin runs names the other cluster's ID in
// the labels Liqo 0.x set.
func TestLiqo0xCleanupCommands(t *testing.T) {
	p := strings.Join(liqo0x.ProviderCleanup("c1"), "\n")
	assert.Contains(t, p, "kubectl delete namespace -l discovery.liqo.io/cluster-id=c1,discovery.liqo.io/tenant-namespace=true")
	assert.Contains(t, p, "kubectl -n liqo delete secret remote-token-c1")
	c := strings.Join(liqo0x.ConsumerCleanup("p1"), "\n")
	assert.Contains(t, c, "kubectl delete secret -A -l discovery.liqo.io/cluster-id=p1,discovery.liqo.io/auth-token")
	assert.Contains(t, c, "liqoctl unpeer out-of-band")
}

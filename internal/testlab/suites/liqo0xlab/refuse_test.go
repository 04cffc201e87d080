//go:build cluster

package liqo0xlab_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The v1 handshake refuses clusters that run Liqo 0.x, saying so, before it
// writes anything: no v1 tenant namespace, no in-process controller.
func TestV1HandshakeRefusesLiqo0x(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx := liqo0xContext(t)
	require.NoError(t, realliqo0x.Install(ctx, cs[0].Config, realliqo0x.InstallOptions{
		ClusterID: providerID, ClusterName: providerName, AuthAddress: realliqo0x.FreeAddress(t)}))
	require.NoError(t, realliqo0x.Install(ctx, cs[1].Config, realliqo0x.InstallOptions{
		ClusterID: consumerID, ClusterName: consumerName, AuthAddress: realliqo0x.FreeAddress(t)}))
	provider, err := kube.NewCluster(cs[0].Config, "")
	require.NoError(t, err)
	consumer, err := kube.NewCluster(cs[1].Config, "")
	require.NoError(t, err)

	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, handshake.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Liqo 0.x")
	assert.Contains(t, err.Error(), "token authentication")
	for _, c := range []*kube.Cluster{provider, consumer} {
		nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: kube.TenantNamespaceLabel})
		require.NoError(t, err)
		for _, ns := range nss.Items {
			assert.NotContains(t, []string{kube.TenantNamespacePrefix + providerID, kube.TenantNamespacePrefix + consumerID}, ns.Name,
				"no v1 tenant namespace on a Liqo 0.x cluster")
		}
	}
}

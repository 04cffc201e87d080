//go:build cluster

package flows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

// A peering user's kubeconfig may read the cluster ID and little else of
// what doctor's cluster checks read: each check then says what it could
// not read, as a pass, never as a failure; the CRDs, which it may not
// get, are seen through discovery.
func TestDoctorClusterChecksAsPeeringUser(t *testing.T) {
	ctx := labtest.Context(t)
	provider := initCluster(t, ctx, clusters(t)[0], "liqo-dcpu-provider", "dcpu-provider")
	user := generatePeeringUser(t, ctx, provider, "dcpu-consumer", flows.PeeringUserOptions{})
	user.authenticates(t, ctx, provider.Namespace, "dcpu-consumer")
	cfg, err := clientcmd.RESTConfigFromKubeConfig(user.raw)
	require.NoError(t, err)
	restricted, err := kube.NewCluster(cfg, provider.Namespace)
	require.NoError(t, err)

	checks, err := flows.ClusterChecks(ctx, restricted)
	require.NoError(t, err)
	details := map[string]string{}
	for _, c := range checks {
		assert.True(t, c.OK, "%+v", c)
		details[c.ID] = c.Detail
	}
	assert.Equal(t, map[string]string{
		"cluster-id":         "dcpu-provider (ConfigMap liqo-clusterid-configmap)",
		"cluster-keys":       "not checked: this kubeconfig may not read Secret liqo-dcpu-provider/authentication-keys (a peering user's cannot)",
		"crds":               "identities, renews, resourceslices, tenants, namespacemaps established",
		"controller-running": "not checked: this kubeconfig may not read the Lease liqo-dcpu-provider/liqo-auth-controller (a peering user's cannot)",
		"csrs":               "not checked: this kubeconfig may not list CertificateSigningRequests",
	}, details)
}

//go:build cluster

package flows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// A consumer's admin holds only a peering user's kubeconfig of the
// provider: doctor reads the provider through it in the consumer's tenant
// namespace, says so, and its cluster checks say what they could not read,
// as passes, never as failures; the CRDs, which it may not get, are seen
// through discovery.
func TestDoctorWithPeeringUserAsRemote(t *testing.T) {
	ctx := labtest.Context(t)
	provider := labtest.InitCluster(t, ctx, clusters(t)[0], "liqo-dcpu-provider", "dcpu-provider")
	user := generatePeeringUser(t, ctx, provider, "dcpu-consumer", flows.PeeringUserOptions{})
	user.authenticates(t, ctx, provider.Namespace, "dcpu-consumer")
	cfg, err := clientcmd.RESTConfigFromKubeConfig(user.raw)
	require.NoError(t, err)
	restricted, err := kube.NewCluster(cfg, provider.Namespace)
	require.NoError(t, err)

	consumer := labtest.InitCluster(t, ctx, clusters(t)[1], "liqo-dcpu-consumer", "dcpu-consumer")

	d, err := flows.Doctor(ctx, consumer, flows.DoctorOptions{Remote: restricted, RemoteID: "dcpu-provider"})
	require.NoError(t, err)
	details := map[string]string{}
	for _, c := range d.Checks {
		if c.Scope == handshake.Remote && c.RemoteID == "" {
			assert.True(t, c.OK, "%+v", c)
			details[c.ID] = c.Detail
		}
	}
	assert.Equal(t, map[string]string{
		"remote-kubeconfig-reach": "it may read only namespace liqo-tenant-dcpu-consumer (a peering user's kubeconfig): checks of the rest are skipped; not even Identities, Renews, ResourceSlices there",
		"cluster-id":              "dcpu-provider (ConfigMap liqo-clusterid-configmap)",
		"cluster-keys":            "not checked: this kubeconfig may not read Secret liqo-dcpu-provider/authentication-keys (a peering user's cannot)",
		"crds":                    "identities, renews, resourceslices, tenants, namespacemaps established",
		"controller-running":      "not checked: this kubeconfig may not read the Lease liqo-dcpu-provider/liqo-auth-controller (a peering user's cannot)",
		"csrs":                    "not checked: this kubeconfig may not list CertificateSigningRequests",
	}, details)
}

//go:build cluster

package doctor_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// A consumer's admin holds only a peering user's kubeconfig of the
// provider: doctor reads the provider through it in the consumer's tenant
// namespace, says so, and its cluster checks say what they could not read,
// as passes, never as failures; the CRDs, which it may not get, are seen
// through discovery.
func TestDoctorWithPeeringUserAsRemote(t *testing.T) {
	ctx := labtest.Context(t)
	provider := labtest.InitCluster(t, ctx, clusters(t)[0], "liqo-dcpu-provider", "dcpu-provider")
	restricted := peeringUser(t, ctx, provider, "dcpu-consumer")

	consumer := labtest.InitCluster(t, ctx, clusters(t)[1], "liqo-dcpu-consumer", "dcpu-consumer")

	d, err := doctor.Run(ctx, consumer, doctor.Options{Remote: restricted, RemoteID: "dcpu-provider"})
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

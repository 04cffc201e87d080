//go:build cluster

package doctorpeering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// A cordoned or drained Tenant fails doctor's tenant-condition check on
// the provider, from either side; the verb it prints (uncordon, activate)
// run on the provider makes the check pass again.
func TestDoctorTenantCordonedOrDrained(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-cond")
	const id = "tenant-condition"
	passes(t, p.fromProvider(t, ctx, false), id)

	require.NoError(t, flows.CordonTenant(ctx, p.provider, p.consumerID, flows.ConfirmOptions{Yes: true}, nil))
	c := failedCheck(t, p.fromProvider(t, ctx, false), id, handshake.Local)
	assert.Equal(t, "the provider cordoned the Tenant: the consumer keeps what it has and gets no new resources", c.Cause)
	assert.Equal(t, "liqo-auth-tui uncordon tenant "+p.consumerID, c.Fix)
	c = failedCheck(t, p.fromConsumer(t, ctx, true), id, handshake.Remote)
	assert.Equal(t, "liqo-auth-tui uncordon tenant "+p.consumerID+" --kubeconfig <provider's kubeconfig>", c.Fix)
	require.NoError(t, flows.UncordonTenant(ctx, p.provider, p.consumerID, nil))
	passes(t, p.fromConsumer(t, ctx, true), id)

	require.NoError(t, flows.DrainTenant(ctx, p.provider, p.consumerID, flows.ConfirmOptions{Yes: true}, nil))
	c = failedCheck(t, p.fromProvider(t, ctx, false), id, handshake.Local)
	assert.Equal(t, "the provider drained the Tenant: the consumer's bindings and ResourceSlices there are gone", c.Cause)
	assert.Equal(t, "liqo-auth-tui activate tenant "+p.consumerID, c.Fix)
	require.NoError(t, flows.ActivateTenant(ctx, p.provider, p.consumerID, nil))
	passes(t, p.fromProvider(t, ctx, false), id)
}

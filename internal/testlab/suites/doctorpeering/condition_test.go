//go:build cluster

package doctorpeering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
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

// liqoctl unauthenticate deletes the Tenant and does not wait: on a
// provider that no controller serves (authenticated by liqo-auth-tui's
// in-process controllers), it stays Terminating on tenant.liqo.io/finalizer
// and the consumer keeps its rights there. doctor on the provider says so,
// and --fix does the controller's cleanup, as Liqo's controller would.
func TestDoctorTenantLeftTerminating(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-term")
	ns := kube.TenantNamespaceName(p.consumerID)
	tn, err := p.provider.TenantFor(ctx, ns, p.consumerID)
	require.NoError(t, err)
	require.NoError(t, p.provider.DeleteTenant(ctx, ns, tn.Name)) // liqoctl's step, no wait
	v, err := flows.Verify(ctx, p.consumer, p.providerID, nil)
	require.NoError(t, err)
	require.NotEmpty(t, v.Allowed, "the consumer keeps its rights while the Tenant is Terminating")

	c := failedCheck(t, p.fromProvider(t, ctx, false), "tenant-terminating", handshake.Local)
	assert.Contains(t, c.Cause, "held by finalizer tenant.liqo.io/finalizer, and no controller runs on the provider")
	assert.Contains(t, c.Fix, "`liqo-auth-tui doctor --fix` does the controller's cleanup")
	repair(t, ctx, c)
	tenants := p.provider.Liqo.Tenants(ns)
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(tenants.List, tenants.Watch, kube.ByName(tn.Name)), &authv1beta1.Tenant{}, "the Tenant finalized"))
	v, err = flows.Verify(ctx, p.consumer, p.providerID, nil)
	require.NoError(t, err)
	assert.Empty(t, v.Allowed, "the consumer's rights went with it")
	absent(t, p.fromProvider(t, ctx, false), "tenant-terminating")
}

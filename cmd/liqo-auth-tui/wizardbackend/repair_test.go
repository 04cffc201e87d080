//go:build cluster

package wizardbackend_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The overview's diagnosis on real API servers: a Tenant applied where no
// controller runs leaves the handshake stopped; Diagnose (on what the
// watch read) shows doctor's fix with the very plan `doctor --fix` shows
// for that check, and ApplyRepair applies that Repair: doctor then finds
// the handshake finished, and the watch sees the pair complete. A plan
// that is not doctor's any more is refused, nothing written.
func TestWizardBackendAppliesDoctorsFix(t *testing.T) {
	ctx := labtest.Context(t)
	b, provider, consumer, p, c := initedPair(t, "liqo-wb-repair")
	pc, err := flows.Connect(flows.ClusterRef{Kubeconfig: provider.Kubeconfig, Namespace: provider.Namespace})
	require.NoError(t, err)
	cc, err := flows.Connect(flows.ClusterRef{Kubeconfig: consumer.Kubeconfig, Namespace: consumer.Namespace})
	require.NoError(t, err)

	// The handshake stopped: the Tenant applied as an object alone, no
	// controller accepting it.
	nonce, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: pc, ConsumerID: c.ClusterID}, nil)
	require.NoError(t, err)
	tenant, err := flows.GenerateTenant(ctx, flows.ConsumerOptions{Consumer: cc, ProviderID: p.ClusterID, Nonce: nonce}, nil)
	require.NoError(t, err)
	tenant.Namespace = kube.TenantNamespaceName(c.ClusterID)
	_, _, err = pc.ApplyTenant(ctx, tenant)
	require.NoError(t, err)

	updates, err := b.WatchOverview(ctx, provider, &consumer)
	require.NoError(t, err)
	row, ok := rowOf(<-updates, c.ClusterID)
	require.True(t, ok)
	assert.Equal(t, handshake.VerdictIncomplete, row.Health.Verdict, "%+v", row)
	assert.True(t, row.Actions().Authenticate, "both clusters: authenticate from here")

	checks, err := b.Diagnose(ctx, provider, &consumer, c.ClusterID)
	require.NoError(t, err)
	fix, ok := checkWithPlan(checks)
	require.True(t, ok, "a fix doctor makes itself: %+v", checks)
	assert.Equal(t, "(local) handshake finished", fix.Title)

	// The plan is doctor --fix's for the same check.
	d, err := doctor.Run(ctx, pc, doctor.Options{RemoteID: c.ClusterID, Remote: cc})
	require.NoError(t, err)
	var cli *doctor.Check
	for _, r := range d.Repairs() {
		if r.Key() == fix.Key {
			cli = &r
		}
	}
	require.NotNil(t, cli, "doctor --fix has the check %s", fix.Key)
	assert.Equal(t, cli.Repair.Plan, fix.Plan)

	stale := fix
	stale.Plan = []string{"some other plan"}
	_, err = b.ApplyRepair(ctx, provider, &consumer, c.ClusterID, stale)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "diagnose again before fixing")

	after, err := b.ApplyRepair(ctx, provider, &consumer, c.ClusterID, fix)
	require.NoError(t, err)
	done := false
	for _, ch := range after {
		if ch.Title == fix.Title {
			done = ch.OK
		}
	}
	assert.True(t, done, "the handshake finished after the fix: %+v", after)
	_, ok = checkWithPlan(after)
	assert.False(t, ok, "nothing left to fix: %+v", after)

	for row.Health.Verdict != handshake.VerdictOK {
		select {
		case rows, open := <-updates:
			require.True(t, open, "the watch ended before the fix showed")
			row, _ = rowOf(rows, c.ClusterID)
		case <-ctx.Done():
			t.Fatalf("no overview with the pair complete: %v (%+v)", ctx.Err(), row)
		}
	}
}

// After a real unauthenticate through the wizard's backend, both clusters
// read: the pair is unauthenticated (no attention needed) and the next
// step is authenticate from here; with the provider alone, unauthenticated
// and no such action.
func TestWizardBackendOverviewAfterUnauthenticate(t *testing.T) {
	ctx := labtest.Context(t)
	b, provider, consumer, _, _ := initedPair(t, "liqo-wb-unauth")
	auth, err := b.Authenticate(ctx, consumer, provider, noSink)
	require.NoError(t, err)
	_, err = b.Unauthenticate(ctx, tui.UnauthRequest{Consumer: &consumer, Provider: &provider, ConsumerID: auth.ConsumerID,
		ProviderID: auth.ProviderID, Route: handshake.RouteV1}, noSink)
	require.NoError(t, err)

	rows, err := b.Overview(ctx, consumer, &provider)
	require.NoError(t, err)
	row, ok := rowOf(rows, auth.ProviderID)
	require.True(t, ok, "%+v", rows)
	assert.Equal(t, handshake.StageUnauthenticated, row.Stage)
	assert.Equal(t, handshake.VerdictUnauthenticated, row.Health.Verdict)
	assert.False(t, row.Health.Verdict.NeedsAttention())
	assert.True(t, row.Actions().Authenticate, "both clusters: authenticate from here")

	rows, err = b.Overview(ctx, provider, nil)
	require.NoError(t, err)
	row, ok = rowOf(rows, auth.ConsumerID)
	require.True(t, ok, "%+v", rows)
	assert.Equal(t, handshake.VerdictUnauthenticated, row.Health.Verdict)
	assert.False(t, row.Actions().Authenticate, "one cluster: the consumer's admin acts")
}

// initedPair is a backend and the lab's two clusters, each initialised in
// a Liqo namespace of its own (ns-p, ns-c), nothing authenticated.
func initedPair(t *testing.T, ns string) (b *wizardbackend.Backend, provider, consumer tui.ClusterRef, p, c *tui.InitResult) {
	t.Helper()
	ctx := labtest.Context(t)
	b = wizardbackend.New(time.Minute, flows.EngineOptions{})
	cs := clusters(t)
	provider = tui.ClusterRef{Kubeconfig: cs[0].KubeconfigPath, Namespace: ns + "-p"}
	consumer = tui.ClusterRef{Kubeconfig: cs[1].KubeconfigPath, Namespace: ns + "-c"}
	p, err := b.Init(ctx, provider, noSink)
	require.NoError(t, err)
	c, err = b.Init(ctx, consumer, noSink)
	require.NoError(t, err)
	return b, provider, consumer, p, c
}

// checkWithPlan is the first failed check with a fix doctor makes itself.
func checkWithPlan(checks []tui.DoctorCheck) (tui.DoctorCheck, bool) {
	for _, c := range checks {
		if !c.OK && len(c.Plan) > 0 {
			return c, true
		}
	}
	return tui.DoctorCheck{}, false
}

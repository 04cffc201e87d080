//go:build cluster

package wizardbackend_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The wizard's overview on real API servers: a pair authenticated through
// the backend is listed on the provider, and on the consumer read with the
// provider; the watch sends a new overview once the provider cordons the
// Tenant (no timer: the next overview the channel carries), and doctor's
// checks of the peering come back.
func TestWizardBackendOverview(t *testing.T) {
	ctx := labtest.Context(t)
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	cs := clusters(t)
	provider := tui.ClusterRef{Kubeconfig: cs[0].KubeconfigPath, Namespace: "liqo-wb-overview-p"}
	consumer := tui.ClusterRef{Kubeconfig: cs[1].KubeconfigPath, Namespace: "liqo-wb-overview-c"}
	_, err := b.Init(ctx, provider, noSink)
	require.NoError(t, err)
	_, err = b.Init(ctx, consumer, noSink)
	require.NoError(t, err)
	auth, err := b.Authenticate(ctx, consumer, provider, noSink)
	require.NoError(t, err)

	rows, err := b.Overview(ctx, provider, nil)
	require.NoError(t, err)
	row, ok := rowOf(rows, auth.ConsumerID)
	require.True(t, ok, "the provider lists consumer %s: %+v", auth.ConsumerID, rows)
	assert.Equal(t, handshake.RoleProvider, row.Role)
	assert.Equal(t, handshake.GenerationV1, row.Generation)
	assert.Equal(t, handshake.RouteV1, row.Route())
	assert.Equal(t, handshake.PeeringActions{TenantMoves: true, ResourceSlices: true}, row.Actions(), "a v1 peering's Tenant moves and slices")
	assert.Equal(t, "Active", row.Condition())
	assert.False(t, row.CertificateNotAfter.IsZero(), "the certificate's expiry")

	updates, err := b.WatchOverview(ctx, consumer, &provider)
	require.NoError(t, err)
	first := <-updates
	row, ok = rowOf(first, auth.ProviderID)
	require.True(t, ok, "the consumer lists provider %s: %+v", auth.ProviderID, first)
	assert.Equal(t, handshake.RoleConsumer, row.Role)
	assert.Equal(t, handshake.StageAuthenticated, row.Stage)
	assert.Equal(t, "Active", row.Condition(), "the Tenant's condition, read on the provider")

	assert.NotEmpty(t, b.MoveQuestion(tui.MoveCordon, auth.ConsumerID), "liqoctl asks before a cordon")
	require.NoError(t, b.MoveTenant(ctx, provider, auth.ConsumerID, tui.MoveCordon, noSink))
	for row.Condition() != "Cordoned" {
		select {
		case rows, open := <-updates:
			require.True(t, open, "the watch ended before the cordon showed")
			row, ok = rowOf(rows, auth.ProviderID)
			require.True(t, ok)
		case <-ctx.Done():
			t.Fatalf("no overview with the Tenant cordoned: %v", ctx.Err())
		}
	}
	assert.Equal(t, handshake.VerdictCordoned, row.Health.Verdict)

	checks, err := b.Diagnose(ctx, consumer, &provider, auth.ProviderID)
	require.NoError(t, err)
	require.NotEmpty(t, checks, "doctor's checks of the peering")
}

func rowOf(rows []tui.OverviewRow, remoteID string) (tui.OverviewRow, bool) {
	for _, r := range rows {
		if r.RemoteID == remoteID {
			return r, true
		}
	}
	return tui.OverviewRow{}, false
}

func noSink(handshake.Event) {}

//go:build cluster

package wizardbackend_test

import (
	"sync"
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

// The manual hand-off through the wizard's backend, one side each: after
// every step, Stage and Peers read from the clusters where each side stands
// (what the wizard resumes from).
func TestWizardBackendStagesAlongTheManualFlow(t *testing.T) {
	ctx := labtest.Context(t)
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	cs := clusters(t)
	provider := tui.ClusterRef{Kubeconfig: cs[0].KubeconfigPath, Namespace: "liqo-wb-stages-p"}
	consumer := tui.ClusterRef{Kubeconfig: cs[1].KubeconfigPath, Namespace: "liqo-wb-stages-c"}
	// Sinks are called from the steps' and the Event watches' goroutines.
	var mu sync.Mutex
	var events []handshake.Event
	sink := func(ev handshake.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }

	p, err := b.Init(ctx, provider, sink)
	require.NoError(t, err)
	c, err := b.Init(ctx, consumer, sink)
	require.NoError(t, err)
	require.NotEmpty(t, events)
	assert.Equal(t, handshake.StepDone, events[len(events)-1].Kind, "init reports its step")

	stage := func(ref tui.ClusterRef, role handshake.Role, peer string) handshake.Stage {
		t.Helper()
		st, err := b.Stage(ctx, ref, role, peer)
		require.NoError(t, err)
		return st
	}
	assert.Equal(t, handshake.StageCreateNonce, stage(provider, handshake.RoleProvider, c.ClusterID))
	assert.Equal(t, handshake.StageAwaitNonce, stage(consumer, handshake.RoleConsumer, p.ClusterID))

	nonce, err := b.CreateNonce(ctx, provider, c.ClusterID, sink)
	require.NoError(t, err)
	assert.Equal(t, handshake.StageAwaitTenant, stage(provider, handshake.RoleProvider, c.ClusterID))
	peers, err := b.Peers(ctx, provider, handshake.RoleProvider)
	require.NoError(t, err)
	assert.Contains(t, peers, tui.Peer{ID: c.ClusterID, Stage: handshake.StageAwaitTenant})

	checked, err := b.CheckNonce(nonce.Data)
	require.NoError(t, err)
	tenant, err := b.GenerateTenant(ctx, consumer, p.ClusterID, string(checked.Data), sink)
	require.NoError(t, err)
	assert.Equal(t, handshake.StageAwaitIdentity, stage(consumer, handshake.RoleConsumer, p.ClusterID))

	_, err = b.ApplyTenant(ctx, provider, tenant.Data, sink)
	require.NoError(t, err)
	assert.Equal(t, handshake.StageGenerateIdentity, stage(provider, handshake.RoleProvider, c.ClusterID))

	identity, err := b.GenerateIdentity(ctx, provider, c.ClusterID, sink)
	require.NoError(t, err)
	assert.False(t, identity.NotAfter.IsZero(), "the Identity's certificate expiry is read")
	res, err := b.ApplyIdentity(ctx, consumer, identity.Data, sink)
	require.NoError(t, err)
	assert.Equal(t, identity.NotAfter, res.CertificateExpiry)
	assert.Equal(t, handshake.StageAuthenticated, stage(consumer, handshake.RoleConsumer, p.ClusterID))

	v, err := b.Verify(ctx, consumer, p.ClusterID, sink)
	require.NoError(t, err)
	assert.Equal(t, c.ClusterID, v.User)
	assert.Equal(t, identity.NotAfter, v.CertificateNotAfter)
}

//go:build cluster

package peerings_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// After a real unauthenticate with both clusters (the tenant namespaces
// kept, as Liqo keeps them), the pair reads as unauthenticated, not as a
// handshake that stopped: on both sides read together (where authenticate
// is the next step, from here), and on the provider alone, which holds the
// certificate it issued and no Tenant. The consumer alone cannot tell it
// from a handshake waiting for its Identity. Doctor finds nothing to fix
// in the peering; authenticate peers the pair again. Doctor on the
// overview's snapshot reads what the overview read.
func TestOverviewReadsAnUnauthenticatedPair(t *testing.T) {
	provider, consumer := authenticatedPair(t, "ovu-provider", "ovu-consumer")
	ctx := labtest.Context(t)
	res, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	require.Len(t, res.Kept, 2, "both tenant namespaces kept: %+v", res)

	var snapshot *peerings.Snapshot
	rows, err := peerings.Read(ctx, consumer, peerings.Options{Remote: provider, OnSnapshot: func(s *peerings.Snapshot) { snapshot = s }})
	require.NoError(t, err)
	require.NotNil(t, snapshot, "the overview hands on what it read")
	both := rowFor(t, rows, "ovu-provider", handshake.RoleConsumer, handshake.GenerationV1)
	assert.Equal(t, handshake.StageUnauthenticated, both.Stage)
	require.NotNil(t, both.Remote)
	assert.Equal(t, handshake.StageUnauthenticated, both.Remote.Stage)
	assert.Equal(t, handshake.Health{Verdict: handshake.VerdictUnauthenticated,
		Reason: "the tenant namespaces stay, as Liqo keeps them; both clusters are at hand: authenticate peers them again from here"}, both.Health)
	assert.True(t, both.Actions().Authenticate, "both clusters at hand: authenticate is the next step")

	rows, err = peerings.Read(ctx, provider, peerings.Options{})
	require.NoError(t, err)
	alone := rowFor(t, rows, "ovu-consumer", handshake.RoleProvider, handshake.GenerationV1)
	assert.Equal(t, handshake.StageUnauthenticated, alone.Stage)
	assert.Equal(t, handshake.VerdictUnauthenticated, alone.Health.Verdict)
	assert.Contains(t, alone.Health.Reason, "the consumer's admin authenticates again")
	assert.False(t, alone.Actions().Authenticate, "one cluster: the other admin acts")

	rows, err = peerings.Read(ctx, consumer, peerings.Options{})
	require.NoError(t, err)
	assert.Equal(t, handshake.StageAwaitIdentity, rowFor(t, rows, "ovu-provider", handshake.RoleConsumer, handshake.GenerationV1).Stage)

	d, err := doctor.Run(ctx, consumer, doctor.Options{RemoteID: "ovu-provider", Remote: provider})
	require.NoError(t, err)
	found := false
	for _, c := range d.Checks {
		assert.True(t, c.OK || c.RemoteID == "", "nothing to fix on an unauthenticated pair: %+v", c)
		if c.ID == "handshake-complete" {
			found = true
			assert.True(t, c.OK, "%+v", c)
			assert.Contains(t, c.Detail, "unauthenticated")
		}
	}
	assert.True(t, found, "doctor checks the handshake")

	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	rows, err = peerings.Read(ctx, consumer, peerings.Options{Remote: provider})
	require.NoError(t, err)
	again := rowFor(t, rows, "ovu-provider", handshake.RoleConsumer, handshake.GenerationV1)
	assert.Equal(t, handshake.StageAuthenticated, again.Stage)
	assert.Equal(t, handshake.VerdictOK, again.Health.Verdict, "%+v", again.Health)

	// Doctor on the overview's snapshot checks what it read, not the
	// clusters again: the pair as it was, unauthenticated.
	d, err = doctor.Run(ctx, consumer, doctor.Options{RemoteID: "ovu-provider", Remote: provider, Snapshot: snapshot})
	require.NoError(t, err)
	for _, c := range d.Checks {
		if c.ID == "handshake-complete" {
			assert.Contains(t, c.Detail, "unauthenticated", "doctor listed the clusters again")
		}
	}
}

package handshake_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// A row's route and actions: a v1 peering's Tenant moves and slices, none
// for Liqo 0.x (no Tenant; its resources go through liqoctl peer).
func TestPeeringRouteAndActions(t *testing.T) {
	v1 := handshake.Peering{RemoteID: "p", Role: handshake.RoleConsumer, Generation: handshake.GenerationV1}
	assert.Equal(t, handshake.RouteV1, v1.Route())
	assert.Equal(t, handshake.PeeringActions{TenantMoves: true, ResourceSlices: true}, v1.Actions())
	legacy := handshake.Peering{RemoteID: "p", Role: handshake.RoleProvider, Generation: handshake.GenerationLiqo0x}
	assert.Equal(t, handshake.RouteLiqo0x, legacy.Route())
	assert.Equal(t, handshake.PeeringActions{}, legacy.Actions())
}

// Authenticate is offered on a v1 peering read on both sides whose
// handshake is not complete (stopped, one-sided or unauthenticated); not
// read with one cluster (the other admin acts), nor on a complete one.
func TestPeeringOffersAuthenticateWithBothClusters(t *testing.T) {
	remote := &handshake.Peering{RemoteID: "me", Role: handshake.RoleProvider, Generation: handshake.GenerationV1}
	for _, tc := range []struct {
		name    string
		row     handshake.Peering
		resumes bool
	}{
		{"unauthenticated, both read", handshake.Peering{Role: handshake.RoleConsumer, Generation: handshake.GenerationV1, Remote: remote,
			Health: handshake.Health{Verdict: handshake.VerdictUnauthenticated}}, true},
		{"stopped, both read", handshake.Peering{Role: handshake.RoleConsumer, Generation: handshake.GenerationV1, Remote: remote,
			Health: handshake.Health{Verdict: handshake.VerdictIncomplete}}, true},
		{"stopped, one read", handshake.Peering{Role: handshake.RoleConsumer, Generation: handshake.GenerationV1,
			Health: handshake.Health{Verdict: handshake.VerdictIncomplete}}, false},
		{"complete, both read", handshake.Peering{Role: handshake.RoleConsumer, Generation: handshake.GenerationV1, Remote: remote,
			Health: handshake.Health{Verdict: handshake.VerdictOK}}, false},
		{"Liqo 0.x, both read", handshake.Peering{Role: handshake.RoleConsumer, Generation: handshake.GenerationLiqo0x, Remote: remote,
			Health: handshake.Health{Verdict: handshake.VerdictIncomplete}}, false},
	} {
		assert.Equal(t, tc.resumes, tc.row.Actions().Authenticate, tc.name)
	}
}

package flows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// A consumer authenticates with a provider on Liqo 0.x through its token
// authentication, whichever 0.x line (v0.2 is refused by the pair's
// problem, not by the route); with any other provider, or one that cannot
// be told, through the v1 handshake.
func TestAuthenticationRouteFollowsTheProvider(t *testing.T) {
	for _, tc := range []struct {
		flavor, version, line string
		want                  handshake.Route
	}{
		{"v1", "", "", handshake.RouteV1},
		{"ours", "", "", handshake.RouteV1},
		{"none", "", "", handshake.RouteV1},
		{"unknown", "", "", handshake.RouteV1},
		{"", "", "", handshake.RouteV1},
		{"0.x", "v0.10.3", "v0.4+", handshake.RouteLiqo0x},
		{"0.x", "v0.3.4", "v0.3", handshake.RouteLiqo0x},
		{"0.x", "v0.2.1", "v0.2", handshake.RouteLiqo0x},
		{"0.x", "", "", handshake.RouteLiqo0x},
	} {
		assert.Equal(t, tc.want, flows.AuthenticationRoute(flows.ReleaseOf(tc.flavor, tc.version, tc.line)), "%s %s %s", tc.flavor, tc.version, tc.line)
	}
}

// A row's route and actions: a v1 peering's Tenant moves and slices, none
// for Liqo 0.x (no Tenant; its resources go through liqoctl peer).
func TestPeeringRowRouteAndActions(t *testing.T) {
	v1 := flows.PeeringRow{RemoteID: "p", Role: handshake.RoleConsumer, Generation: flows.GenerationV1}
	assert.Equal(t, handshake.RouteV1, v1.Route())
	assert.Equal(t, handshake.PeeringActions{TenantMoves: true, ResourceSlices: true}, v1.Actions())
	legacy := flows.PeeringRow{RemoteID: "p", Role: handshake.RoleProvider, Generation: flows.GenerationLiqo0x}
	assert.Equal(t, handshake.RouteLiqo0x, legacy.Route())
	assert.Equal(t, handshake.PeeringActions{}, legacy.Actions())
}

// Authenticate is offered on a v1 peering read on both sides whose
// handshake is not complete (stopped, one-sided or unauthenticated); not
// read with one cluster (the other admin acts), nor on a complete one.
func TestPeeringRowOffersAuthenticateWithBothClusters(t *testing.T) {
	remote := &flows.PeeringRow{RemoteID: "me", Role: handshake.RoleProvider, Generation: flows.GenerationV1}
	for _, tc := range []struct {
		name    string
		row     flows.PeeringRow
		resumes bool
	}{
		{"unauthenticated, both read", flows.PeeringRow{Role: handshake.RoleConsumer, Generation: flows.GenerationV1, Remote: remote,
			Health: flows.Health{Verdict: handshake.VerdictUnauthenticated}}, true},
		{"stopped, both read", flows.PeeringRow{Role: handshake.RoleConsumer, Generation: flows.GenerationV1, Remote: remote,
			Health: flows.Health{Verdict: handshake.VerdictIncomplete}}, true},
		{"stopped, one read", flows.PeeringRow{Role: handshake.RoleConsumer, Generation: flows.GenerationV1,
			Health: flows.Health{Verdict: handshake.VerdictIncomplete}}, false},
		{"complete, both read", flows.PeeringRow{Role: handshake.RoleConsumer, Generation: flows.GenerationV1, Remote: remote,
			Health: flows.Health{Verdict: handshake.VerdictOK}}, false},
		{"Liqo 0.x, both read", flows.PeeringRow{Role: handshake.RoleConsumer, Generation: flows.GenerationLiqo0x, Remote: remote,
			Health: flows.Health{Verdict: handshake.VerdictIncomplete}}, false},
	} {
		assert.Equal(t, tc.resumes, tc.row.Actions().Authenticate, tc.name)
	}
}

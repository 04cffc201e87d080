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

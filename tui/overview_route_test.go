package tui

import (
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The overview's menu is what flows says a row offers (its Actions), not
// what its states read: a Liqo 0.x peering (no Tenant moves, no slices)
// offers neither cordon nor resources even in an Active state with slices,
// and its unauthenticate carries the row's route.
func TestOverviewActionsAreTheRows(t *testing.T) {
	f := newFake()
	rows := []OverviewRow{{RemoteID: "consumer-7", Role: handshake.RoleProvider, Generation: "0.x",
		Stage: handshake.StageIdentityIssued, TenantCondition: "Active", Slices: []SliceInfo{{Name: "gpu"}}, Health: handshake.Health{Verdict: handshake.VerdictOK}}}
	h := overviewOf(t, f, rows)
	h.key("enter")
	k := h.m.cur.(*overviewScreen).Keys().(overviewKeys)
	if k.Cordon.Enabled() || k.Drain.Enabled() || k.RequestSlice.Enabled() || k.DeleteSlice.Enabled() {
		t.Fatalf("a row without Tenant moves or slices offers them:\n%s", h.view())
	}
	if !k.Unauthenticate.Enabled() || !k.Diagnose.Enabled() {
		t.Fatalf("unauthenticate or diagnose missing:\n%s", h.view())
	}
	h.key("U", "y")
	if len(f.overview.unauths) != 1 || f.overview.unauths[0].Route != handshake.RouteLiqo0x {
		t.Fatalf("requests %+v", f.overview.unauths)
	}

	// The same row in v1, which has Tenant moves: cordon (no request on
	// the provider's row).
	f = newFake()
	rows[0].Generation = handshake.GenerationV1
	h = overviewOf(t, f, rows)
	h.key("enter")
	if k := h.m.cur.(*overviewScreen).Keys().(overviewKeys); !k.Cordon.Enabled() || k.RequestSlice.Enabled() {
		t.Fatalf("cordon %v, request %v", k.Cordon.Enabled(), k.RequestSlice.Enabled())
	}
}

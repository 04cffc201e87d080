package flows_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// A front-end that showed a Repair's plan finds the same check in a new
// diagnosis by its key, with that plan; one whose plan changed, that
// passes now or that doctor cannot fix itself is refused.
func TestRepairOfFindsTheCheckShown(t *testing.T) {
	plan := []string{"resume the handshake"}
	fixable := flows.Check{ID: "handshake-complete", RemoteID: "p", Scope: handshake.Remote, Title: "handshake finished", Repair: &flows.Repair{Plan: plan}}
	byHand := flows.Check{ID: "tenant-condition", RemoteID: "p", Scope: handshake.Remote, Title: "Tenant condition", Fix: "liqo-auth-tui uncordon tenant c"}
	d := &flows.Diagnosis{Checks: []flows.Check{byHand, fixable}}
	assert.Equal(t, "handshake-complete/p/remote", fixable.Key())

	c, err := d.RepairOf(fixable.Key(), plan)
	require.NoError(t, err)
	assert.Equal(t, fixable.Title, c.Title)

	_, err = d.RepairOf(fixable.Key(), []string{"another plan"})
	assert.True(t, errors.Is(err, flows.ErrRepairChanged), "%v", err)
	_, err = d.RepairOf(byHand.Key(), nil)
	assert.True(t, errors.Is(err, flows.ErrRepairChanged), "%v", err)
	fixable.OK = true
	_, err = (&flows.Diagnosis{Checks: []flows.Check{fixable}}).RepairOf(fixable.Key(), plan)
	assert.True(t, errors.Is(err, flows.ErrRepairChanged), "%v", err)
}

package doctor_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// A front-end that showed a Repair's plan finds the same check in a new
// diagnosis by its key, with that plan; one whose plan changed, that
// passes now or that doctor cannot fix itself is refused.
func TestRepairOfFindsTheCheckShown(t *testing.T) {
	plan := []string{"resume the handshake"}
	fixable := doctor.Check{ID: "handshake-complete", RemoteID: "p", Scope: handshake.Remote, Title: "handshake finished", Repair: &doctor.Repair{Plan: plan}}
	byHand := doctor.Check{ID: "tenant-condition", RemoteID: "p", Scope: handshake.Remote, Title: "Tenant condition", Fix: "liqo-auth-tui uncordon tenant c"}
	d := &doctor.Diagnosis{Checks: []doctor.Check{byHand, fixable}}
	assert.Equal(t, "handshake-complete/p/remote", fixable.Key())

	c, err := d.RepairOf(fixable.Key(), plan)
	require.NoError(t, err)
	assert.Equal(t, fixable.Title, c.Title)

	_, err = d.RepairOf(fixable.Key(), []string{"another plan"})
	assert.True(t, errors.Is(err, doctor.ErrRepairChanged), "%v", err)
	_, err = d.RepairOf(byHand.Key(), nil)
	assert.True(t, errors.Is(err, doctor.ErrRepairChanged), "%v", err)
	fixable.OK = true
	_, err = (&doctor.Diagnosis{Checks: []doctor.Check{fixable}}).RepairOf(fixable.Key(), plan)
	assert.True(t, errors.Is(err, doctor.ErrRepairChanged), "%v", err)
}

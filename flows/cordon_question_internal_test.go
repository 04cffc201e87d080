package flows

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The wizard asks what liqoctl asks, word for word: the same text the
// commands' Confirm gets, and nothing where liqoctl does not ask.
func TestTenantMoveQuestion(t *testing.T) {
	var asked []string
	o := ConfirmOptions{Confirm: func(q string) bool { asked = append(asked, q); return false }}
	for _, m := range []tenantMove{cordonTenant, drainTenant} {
		o.confirmed(m.verb, fmt.Sprintf(m.risk, "consumer-1"))
	}
	assert.Equal(t, []string{TenantMoveQuestion("cordon", "consumer-1"), TenantMoveQuestion("drain", "consumer-1")}, asked)
	assert.Equal(t, "drain is a potentially destructive command: consumer consumer-1 loses its permissions on this cluster and every ResourceSlice it has here is deleted",
		TenantMoveQuestion("drain", "consumer-1"))
	assert.Empty(t, TenantMoveQuestion("uncordon", "consumer-1"))
	assert.Empty(t, TenantMoveQuestion("activate", "consumer-1"))
	assert.Empty(t, TenantMoveQuestion("delete", "consumer-1"))
}

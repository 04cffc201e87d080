//go:build cluster

package liqo0xlab_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
)

// After this tool authenticated as a 0.x consumer with a real Liqo v0.10
// auth server, the overview shows the consumer's 0.x row, made by this
// tool, and the provider's: the identity it issued, with the same
// certificate; read together, they are joined.
func TestLiqo0xOverview(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)
	res, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), nil)
	require.NoError(t, err)

	rows, err := peerings.Read(ctx, p.consumer, peerings.Options{})
	require.NoError(t, err)
	var c *handshake.Peering
	for i := range rows {
		if rows[i].RemoteID == providerID {
			c = &rows[i]
		}
	}
	require.NotNil(t, c, "%+v", rows)
	assert.Equal(t, handshake.RoleConsumer, c.Role)
	assert.Equal(t, handshake.GenerationLiqo0x, c.Generation)
	assert.Equal(t, handshake.MadeByTool, c.MadeBy)
	assert.Equal(t, handshake.StageAuthenticated, c.Stage)
	assert.Equal(t, res.NotAfter.UTC(), c.CertificateNotAfter)
	assert.Equal(t, handshake.VerdictOK, c.Health.Verdict, c.Health.Reason)

	rows, err = peerings.Read(ctx, p.provider, peerings.Options{})
	require.NoError(t, err)
	var issued *handshake.Peering
	for i := range rows {
		if rows[i].RemoteID == p.consumerID {
			issued = &rows[i]
		}
	}
	require.NotNil(t, issued, "%+v", rows)
	assert.Equal(t, handshake.RoleProvider, issued.Role)
	assert.Equal(t, handshake.GenerationLiqo0x, issued.Generation)
	assert.Equal(t, handshake.MadeByLiqo, issued.MadeBy)
	assert.Equal(t, handshake.StageIdentityIssued, issued.Stage)
	assert.Equal(t, c.CertificateNotAfter, issued.CertificateNotAfter)
	assert.Equal(t, handshake.Health{Verdict: handshake.VerdictOK, Reason: "identity issued"}, issued.Health)

	rows, err = peerings.Read(ctx, p.consumer, peerings.Options{Remote: p.provider})
	require.NoError(t, err)
	require.Len(t, rows, 1, "%+v", rows)
	require.NotNil(t, rows[0].Remote)
	assert.Equal(t, handshake.StageIdentityIssued, rows[0].Remote.Stage)
	assert.Equal(t, handshake.VerdictOK, rows[0].Health.Verdict, rows[0].Health.Reason)
}

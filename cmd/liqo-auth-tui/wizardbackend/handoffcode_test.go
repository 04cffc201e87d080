//go:build cluster

package wizardbackend_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

var codeShape = regexp.MustCompile(`^\d{4}( \d{4}){4}$`)

// Each side's wizard computes the verification code from its own cluster:
// the sender's and the receiver's are equal for the real Tenant and
// Identity, not for a Tenant forged with another key.
func TestWizardBackendCodesEqualOnBothSides(t *testing.T) {
	ctx := labtest.Context(t)
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	cs := clusters(t)
	provider := tui.ClusterRef{Kubeconfig: cs[0].KubeconfigPath, Namespace: "liqo-wb-code-p"}
	consumer := tui.ClusterRef{Kubeconfig: cs[1].KubeconfigPath, Namespace: "liqo-wb-code-c"}
	p, err := b.Init(ctx, provider, nil)
	require.NoError(t, err)
	c, err := b.Init(ctx, consumer, nil)
	require.NoError(t, err)

	created, err := b.CreateNonce(ctx, provider, c.ClusterID, nil)
	require.NoError(t, err)
	nonce, err := artifact.ParseNonce(created.Data) // as the consumer's wizard reads it
	require.NoError(t, err)
	sent, err := b.GenerateTenant(ctx, consumer, p.ClusterID, nonce, nil)
	require.NoError(t, err)
	assert.Regexp(t, codeShape, sent.Code)
	received, err := b.CheckTenant(ctx, provider, sent.Data)
	require.NoError(t, err)
	assert.Equal(t, sent.Code, received.Code, "both admins read the same code")

	real, err := artifact.DecodeTenant(sent.Data)
	require.NoError(t, err)
	forgedData, err := artifact.Encode(labtest.ForgeTenant(t, real, nonce), "yaml")
	require.NoError(t, err)
	forged, err := b.CheckTenant(ctx, provider, forgedData)
	require.NoError(t, err, "a forged Tenant passes every check Liqo makes")
	assert.Regexp(t, codeShape, forged.Code)
	assert.NotEqual(t, sent.Code, forged.Code, "but its code is not the consumer's")

	_, err = b.ApplyTenant(ctx, provider, sent.Data, nil)
	require.NoError(t, err)
	identity, err := b.GenerateIdentity(ctx, provider, c.ClusterID, nil)
	require.NoError(t, err)
	assert.Regexp(t, codeShape, identity.Code)
	assert.NotEqual(t, sent.Code, identity.Code)
	got, err := b.CheckIdentity(ctx, consumer, identity.Data)
	require.NoError(t, err)
	assert.Equal(t, identity.Code, got.Code, "both admins read the same code")
}

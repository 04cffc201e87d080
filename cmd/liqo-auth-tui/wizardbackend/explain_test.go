package wizardbackend

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func failure(t *testing.T, err error) *tui.Failure {
	t.Helper()
	var f *tui.Failure
	require.True(t, errors.As(err, &f), "%T: %v", err, err)
	return f
}

func TestExplainScopedPrefixesTheSide(t *testing.T) {
	f := failure(t, explainScoped(handshake.Local, errors.New("no cluster ID")))
	assert.Equal(t, "(local) no cluster ID", f.Reason)
	assert.Equal(t, handshake.Local, f.Scope)
	assert.Nil(t, explainErr(nil))
}

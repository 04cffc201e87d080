package wizardbackend_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// An install that cannot reach the cluster says where and why, and that
// nothing was applied (no cluster needed).
func TestWizardBackendInstallFailureIsExplained(t *testing.T) {
	kc, addr := labtest.UnreachableKubeconfig(t)

	res, err := wizardbackend.New(time.Minute, flows.EngineOptions{}).InstallController(labtest.Context(t), tui.ClusterRef{Kubeconfig: kc}, "", handshake.Discard)
	require.Error(t, err)
	var f *tui.Failure
	require.True(t, errors.As(err, &f), "%T: %v", err, err)
	assert.Contains(t, f.Reason, "https://"+addr)
	assert.Contains(t, f.Reason, "connection refused")
	assert.Contains(t, f.Hint, "0 object(s) were applied before the failure")
	require.NotNil(t, res)
	assert.Empty(t, res.Changed)
}

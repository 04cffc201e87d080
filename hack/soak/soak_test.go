//go:build cluster

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labbin"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The short soak `make test` runs: 10 consumers for 2 minutes, the faults
// on shorter periods so that each comes at least once (provider restart at
// 40 s and 80 s, leader kill at 60 s, a consumer paused at 30 s and 90 s for
// 20 s); 3-minute certificates renew 20 s after they are issued, so each
// kubeconfig renews several times. The targets hold: no probe failure
// that counts (not authenticated, or the provider unavailable outside its restarts
// and their recovery), every renewal due was done, none expired, no CSR
// left behind.
func TestShortSoak(t *testing.T) {
	dir := t.TempDir()
	binary, err := labbin.Path(dir, "liqo-auth-controller")
	require.NoError(t, err, "building the controller")
	cfg := Config{Consumers: 10, Duration: 2 * time.Minute, SigningDuration: 3 * time.Minute, ProbeInterval: 15 * time.Second,
		ProviderRestartEvery: 40 * time.Second, LeaderKillEvery: 60 * time.Second, ConsumerPauseEvery: 30 * time.Second,
		ConsumerPauseFor: 20 * time.Second, ControllerBinary: binary, Dir: filepath.Join(dir, "soak")}
	r, err := Run(t.Context(), cfg, os.Stderr)
	require.NoError(t, err)
	r.Print(os.Stdout)
	assert.Empty(t, r.Problems())
	assert.Positive(t, r.Renewals.due, "renewals came due during the soak")
	assert.NotEmpty(t, r.Windows, "faults were injected")
	assert.NotEmpty(t, r.LeaderChanges, "the leader changed")
	if t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(cfg.Dir, "*controller.log"))
		t.Logf("controller logs kept in %v", logs)
	}
}

package main_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without the control-plane binaries, `up` fails and says how to build
// them (no cluster needed; the lab tests themselves are in up_test.go,
// behind the cluster build tag).
func TestUpWithoutBinariesSaysHowToBuildThem(t *testing.T) {
	cmd := exec.Command("go", "run", ".", "up", "--dir", t.TempDir())
	cmd.Env = append(os.Environ(), "LIQO_AUTH_KUBE_BINARIES="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "make kube-binaries")
}

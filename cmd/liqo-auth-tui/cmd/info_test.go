package cmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// info on a server that refuses connections fails with one line naming the
// server and the failure (no cluster needed).
func TestInfoOnUnreachableServerFailsWithOneLine(t *testing.T) {
	kc, addr := labtest.UnreachableKubeconfig(t)

	code, out, errOut := run("info", "--kubeconfig", kc)
	assert.Equal(t, cmd.ExitFailure, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	assert.Contains(t, errOut, "https://"+addr)
	assert.Contains(t, errOut, "connection refused")
}

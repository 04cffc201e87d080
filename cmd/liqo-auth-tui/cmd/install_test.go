//go:build cluster

package cmd_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// install controller reports each object it applied, and again that
// nothing changed; an install the kubeconfig may not make fails with one
// line that says why and what was applied, as the wizard's install says.
func TestInstallControllerSaysWhatToDo(t *testing.T) {
	install := []string{"install", "controller", "--kubeconfig", clusters(t)[1].KubeconfigPath, "--liqo-namespace", "liqo-cli-install"}
	code, out, errOut := run(install...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "(local) Deployment liqo-auth-controller created")
	assert.Contains(t, errOut, "(local) Controller installed (")

	code, _, errOut = run(install...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "unchanged: ")
	assert.NotContains(t, errOut, "created")

	nobody, err := clusters(t)[1].AddUser("install-nobody")
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "nobody.kubeconfig")
	require.NoError(t, lab.WriteKubeconfig(kubeconfig, "nobody", nobody))
	code, out, errOut = run("install", "controller", "--kubeconfig", kubeconfig, "--liqo-namespace", "liqo-cli-install-nobody")
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Empty(t, out)
	lines := errorLines(errOut)
	require.Len(t, lines, 1, errOut)
	assert.Contains(t, lines[0], "Installing the controller failed: ")
	assert.Contains(t, lines[0], "forbidden")
	assert.Contains(t, lines[0], "the kubeconfig's user lacks the permission named above")
	assert.Contains(t, lines[0], "0 object(s) were applied before the failure (listed above); installing again applies the rest and leaves those unchanged")
}

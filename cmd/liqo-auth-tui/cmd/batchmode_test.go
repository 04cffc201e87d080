//go:build cluster

package cmd_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
)

// --batch completes the manual flow in four invocations (provider,
// consumer, provider, consumer) with only files passed between them.
func TestBatchModeManualFlowInFourInvocations(t *testing.T) {
	provider, consumer := initSide(t, 0, "bm-provider"), initSide(t, 1, "bm-consumer")
	dir := t.TempDir()
	save := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
		return p
	}

	code, out, errOut := run(provider.args("--batch", "--role", "provider", "--remote-cluster-id", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	nonceFile := save("nonce.txt", out)
	assert.Contains(t, errOut, "--batch --role consumer --remote-cluster-id "+provider.id)

	code, out, errOut = run(consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", provider.id, "--nonce-file", nonceFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	tenantFile := save("tenant.yaml", out)
	assert.Contains(t, out, "kind: Tenant")
	assert.Contains(t, errOut, "--batch --role provider --remote-cluster-id "+consumer.id)

	code, out, errOut = run(provider.args("--batch", "--role", "provider", "--remote-cluster-id", consumer.id, "--tenant-file", tenantFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	identityFile := save("identity.yaml", out)
	assert.Contains(t, out, "kind: Identity")

	code, _, errOut = run(consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", provider.id, "--identity-file", identityFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Authenticated with provider "+provider.id)

	// Resuming: each side run again without artifacts lands on its next step.
	code, out, errOut = run(provider.args("--batch", "--role", "provider", "--remote-cluster-id", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, out, "kind: Identity", "an accepted Tenant means: send the Identity again")
	code, _, errOut = run(consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Already authenticated")
}

func TestBatchModeUsageAndNoTerminal(t *testing.T) {
	code, _, errOut := run("--batch", "--kubeconfig", clusters(t)[1].KubeconfigPath)
	assert.Equal(t, cmd.ExitUsage, code, errOut)
	assert.Contains(t, errOut, "--remote-cluster-id")
	code, _, errOut = run("--batch", "--kubeconfig", clusters(t)[1].KubeconfigPath, "--remote-cluster-id", "x", "--role", "king")
	assert.Equal(t, cmd.ExitUsage, code, errOut)
	// A peer info with both kubeconfigs: refused, not silently ignored.
	code, _, errOut = run("--batch", "--kubeconfig", clusters(t)[1].KubeconfigPath, "--remote-kubeconfig", clusters(t)[0].KubeconfigPath,
		"--peer-info-file", "peer-info.txt")
	assert.Equal(t, cmd.ExitUsage, code, errOut)
	assert.Contains(t, errOut, "--peer-info-file is for the consumer alone")
	// Tests have no terminal: the wizard must not start.
	code, _, errOut = run("--kubeconfig", clusters(t)[1].KubeconfigPath)
	assert.Equal(t, cmd.ExitUsage, code)
	assert.Contains(t, errOut, "not a terminal: use --batch or a subcommand")
}

//go:build cluster

package cmd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
)

// unauthenticate --one-sided, when the other cluster is gone: each side is
// cleaned alone, and what is left on the other is printed with the command
// that removes it; run again, it has nothing left to do.
func TestUnauthenticateOneSidedCommand(t *testing.T) {
	provider, consumer := initSide(t, 0, "os-provider"), initSide(t, 1, "os-consumer")
	remote := []string{"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace}
	code, _, errOut := run(consumer.args(append([]string{"authenticate"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	code, _, errOut = run(consumer.args("unauthenticate", "--one-sided", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "left on the provider", "says what stays on the provider it did not reach")
	assert.Contains(t, errOut, "kubectl")

	providerOnly := append([]string{"unauthenticate", "--one-sided", "--remote-cluster-id", consumer.id}, remote...)
	code, _, errOut = run(providerOnly...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "left on the consumer")

	code, _, errOut = run(consumer.args("unauthenticate", "--one-sided", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
}

//go:build cluster

package cmd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
)

func TestInitTwiceThenInfo(t *testing.T) {
	kc := clusters(t)[0].KubeconfigPath
	code, out, errOut := run("init", "--kubeconfig", kc, "--cluster-id", "batch-provider")
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "(local) Secret authentication-keys created")
	assert.Contains(t, errOut, "Cluster batch-provider is ready for the handshake")

	code, _, errOut = run("init", "--kubeconfig", kc)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.NotContains(t, errOut, " created")
	assert.Contains(t, errOut, "nothing changed")

	code, out, errOut = run("info", "--kubeconfig", kc, "-o", "json")
	require.Equal(t, cmd.ExitOK, code, errOut)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	for _, key := range []string{"clusterID", "liqoInstalled", "controller", "keyAlgorithm", "keyFingerprint", "apiServer"} {
		assert.Contains(t, info, key)
	}
	assert.Equal(t, "batch-provider", info["clusterID"])
	assert.Equal(t, false, info["liqoInstalled"])
	assert.Equal(t, false, info["controller"])
	assert.Equal(t, "Ed25519", info["keyAlgorithm"])
	assert.Equal(t, clusters(t)[0].Config.Host, info["apiServer"])
	assert.True(t, strings.HasPrefix(info["keyFingerprint"].(string), "SHA256:"))

	code, out, errOut = run("info", "--kubeconfig", kc)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, out, "batch-provider")
	assert.Contains(t, out, info["keyFingerprint"])
	assert.NotContains(t, out, "PRIVATE KEY")
}

func TestUsageErrorsExitTwo(t *testing.T) {
	kc := clusters(t)[1].KubeconfigPath
	for _, args := range [][]string{
		{"init", "--kubeconfig", kc, "--key-type", "dsa"},
		{"init", "--kubeconfig", kc, "--cluster-id", "Bad_ID"},
		{"info", "--kubeconfig", kc, "-o", "xml"},
		{"info", "--no-such-flag"},
		{"info", "extra-arg"},
		{"no-such-command"},
	} {
		code, _, errOut := run(args...)
		assert.Equal(t, cmd.ExitUsage, code, "%v: %s", args, errOut)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: %s", args, errOut)
	}
	// Nothing was written by the refused init calls.
	code, out, _ := run("info", "--kubeconfig", kc, "-o", "json")
	require.Equal(t, cmd.ExitOK, code)
	assert.Contains(t, out, `"clusterID": ""`)
}

// The provider is named or nothing runs: with KUBECONFIG pointing at the
// consumer, a fallback to the default kubeconfig would pair the consumer
// with itself.
func TestProviderMustBeNamed(t *testing.T) {
	kc := clusters(t)[1].KubeconfigPath
	t.Setenv("KUBECONFIG", kc)
	for _, args := range [][]string{
		{"authenticate", "--kubeconfig", kc},
		{"unauthenticate", "--kubeconfig", kc},
		{"authenticate"},
	} {
		code, out, errOut := run(args...)
		assert.Equal(t, cmd.ExitUsage, code, "%v: %s", args, errOut)
		assert.Empty(t, out, "%v", args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: %s", args, errOut)
		assert.Contains(t, errOut, "--remote-kubeconfig", "%v", args)
	}
}

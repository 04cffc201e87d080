//go:build cluster

package cmd_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// status after a real handshake and a slice: -o json reads back as the
// rows (consumer and provider), the table shows them, and with
// --remote-kubeconfig the pair's row carries the other side.
func TestStatusCommand(t *testing.T) {
	provider, consumer := initSide(t, 0, "st-provider"), initSide(t, 1, "st-consumer")
	code, _, errOut := run(consumer.args("authenticate", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	code, _, errOut = run(consumer.args("create", "resourceslice", "st-slice", "--remote-cluster-id", provider.id, "--cpu", "1",
		"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	code, out, errOut := run(consumer.args("status", "-o", "json")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	var rows []handshake.Peering
	require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	var mine *handshake.Peering
	at := 0
	for i := range rows {
		if rows[i].RemoteID == provider.id {
			mine, at = &rows[i], i
		}
	}
	require.NotNil(t, mine, out)
	assert.Equal(t, handshake.RoleConsumer, mine.Role)
	assert.Equal(t, "v1", mine.Generation)
	assert.Equal(t, handshake.StageAuthenticated, mine.Stage)
	assert.Equal(t, handshake.StateReady, mine.Identity)
	assert.Equal(t, handshake.VerdictOK, mine.Health.Verdict)
	assert.Equal(t, map[string]string{"cpu": "1"}, mine.Requested)
	assert.Equal(t, "1", mine.Granted["cpu"])
	assert.False(t, mine.CertificateNotAfter.IsZero())
	// Stable field names.
	var raw []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	for _, key := range []string{"remoteClusterID", "role", "generation", "madeBy", "stage", "identity", "certificateNotAfter", "slices", "requested", "granted", "health"} {
		assert.Contains(t, raw[at], key)
	}

	code, out, errOut = run(consumer.args("status")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Regexp(t, `REMOTE\s+NAME\s+ROLE\s+GEN\s+BY\s+STAGE\s+IDENTITY\s+TENANT\s+CONDITION\s+CERT EXPIRES\s+RENEWED\s+SLICES\s+REQUESTED\s+GRANTED\s+HEALTH\s+REASON`, out)
	assert.Regexp(t, `st-provider\s+-\s+consumer\s+v1\s+liqo-auth-tui\s+authenticated\s+ready\s+-\s+-\s+\S+\s+never\s+1\s+cpu=1\s+cpu=1,\S+\s+ok\s+authenticated`, out)

	code, out, errOut = run(consumer.args("status", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace, "-o", "yaml")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	rows = nil
	require.NoError(t, yaml.Unmarshal([]byte(out), &rows), out)
	require.Len(t, rows, 1, out)
	require.NotNil(t, rows[0].Remote, out)
	assert.Equal(t, consumer.id, rows[0].Remote.RemoteID)
	assert.Equal(t, handshake.StageGenerateIdentity, rows[0].Remote.Stage)
	assert.Equal(t, "Active", rows[0].Remote.TenantCondition)
	require.Len(t, rows[0].Remote.Slices, 1)

	code, out, errOut = run(consumer.args("status", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Regexp(t, `st-provider\s+.*ready\s+ready\s+Active\s+.*generate-identity\s+ok`, out)

	code, out, errOut = run(consumer.args("status", "-o", "wide")...)
	assert.Equal(t, cmd.ExitUsage, code)
	assert.Empty(t, out)
	require.Len(t, errorLines(errOut), 1, errOut)
}

package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

const liqo0xTestToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" +
	"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

func liqo0xPeerInfoLine(t *testing.T) string {
	t.Helper()
	line, err := artifact.EncodePeerInfo(&peerinfo.Info{ClusterID: "p1", ClusterName: "milan", AuthURL: "https://10.0.0.5:30443",
		Token: liqo0xTestToken, Line: peerinfo.V04})
	require.NoError(t, err)
	return line
}

// Bad peer info and bad flags fail with one line and a remedy, before any
// cluster is dialed (the kubeconfig does not even exist), and never print
// the token.
func TestLiqo0xCommandsBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
		return p
	}
	line := liqo0xPeerInfoLine(t)
	nonce, err := authcrypto.NewNonce()
	require.NoError(t, err)
	good := write("good.txt", line+"\n")
	noKube := []string{"--kubeconfig", filepath.Join(dir, "no-such-kubeconfig")}

	cases := []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  string
	}{
		{"truncated", []string{"apply", "peer-info", "-f", write("t.txt", line[:len(line)-5])}, "", cmd.ExitFailure, "truncated"},
		{"edited", []string{"apply", "peer-info", "-f", write("e.txt", line[:30]+flipCase(line[30:31])+line[31:])}, "", cmd.ExitFailure, "checksum mismatch"},
		{"nonce", []string{"apply", "peer-info", "-f", write("n.txt", nonce)}, "", cmd.ExitFailure, "this is a nonce"},
		{"tenant", []string{"apply", "peer-info", "-f", write("tenant.yaml", "apiVersion: authentication.liqo.io/v1beta1\nkind: Tenant\n")}, "", cmd.ExitFailure, "this is a Tenant"},
		{"stdin token", []string{"apply", "peer-info", "-f", "-"}, liqo0xTestToken + "\n", cmd.ExitFailure, "bare auth token"},
		{"missing file", []string{"apply", "peer-info", "-f", filepath.Join(dir, "none.txt")}, "", cmd.ExitFailure, "reading peer info"},
		{"no -f", []string{"apply", "peer-info"}, "", cmd.ExitUsage, "filename"},
		{"bad cluster name", []string{"apply", "peer-info", "-f", good, "--cluster-name", "Bad_Name"}, "", cmd.ExitUsage, "--cluster-name"},
		{"long cluster name", []string{"apply", "peer-info", "-f", good, "--cluster-name", strings.Repeat("a", 45)}, "", cmd.ExitUsage, "at most 44"},
		{"bad foreign cluster name", []string{"apply", "peer-info", "-f", good, "--foreign-cluster-name", "Milan!"}, "", cmd.ExitUsage, "--foreign-cluster-name"},
		{"generate bad output", []string{"generate", "peer-info", "-o", "yaml"}, "", cmd.ExitUsage, "output format"},
		{"generate http auth URL", []string{"generate", "peer-info", "--auth-url", "http://10.0.0.5:30443"}, "", cmd.ExitUsage, "not https"},
		{"authenticate http auth URL", []string{"authenticate", "--auth-url", "http://x:1", "--remote-kubeconfig", "x"}, "", cmd.ExitUsage, "not https"},
		{"authenticate bad cluster name", []string{"authenticate", "--cluster-name", "A", "--remote-kubeconfig", "x"}, "", cmd.ExitUsage, "--cluster-name"},
		{"one-sided without ID", []string{"unauthenticate", "--one-sided"}, "", cmd.ExitUsage, "--remote-cluster-id"},
		{"ID without one-sided", []string{"unauthenticate", "--remote-cluster-id", "p1", "--remote-kubeconfig", "x"}, "", cmd.ExitUsage, "--one-sided"},
		{"batch truncated", []string{"--batch", "--role", "consumer", "--remote-cluster-id", "p1", "--peer-info-file", write("bt.txt", line[:20])}, "", cmd.ExitFailure, "truncated"},
		{"batch other provider", []string{"--batch", "--role", "consumer", "--remote-cluster-id", "p2", "--peer-info-file", good}, "", cmd.ExitFailure, "not from --remote-cluster-id p2"},
		{"batch with nonce", []string{"--batch", "--role", "consumer", "--remote-cluster-id", "p1", "--peer-info-file", good, "--nonce", nonce}, "", cmd.ExitUsage, "--peer-info-file"},
		{"batch provider with peer info", []string{"--batch", "--role", "provider", "--remote-cluster-id", "c1", "--peer-info-file", good}, "", cmd.ExitUsage, "--peer-info-file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runWithInput(c.stdin, append(c.args, noKube...)...)
			assert.Equal(t, c.code, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, c.want)
			assert.NotContains(t, stderr, "no-such-kubeconfig", "no cluster is dialed")
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			assert.NotContains(t, stderr, liqo0xTestToken[30:60], "the token is never printed")
		})
	}
}

func flipCase(s string) string {
	if u := strings.ToUpper(s); u != s {
		return u
	}
	if l := strings.ToLower(s); l != s {
		return l
	}
	return map[bool]string{true: "A", false: "B"}[s != "A"]
}

// The commands are registered where the hand-off says they are.
func TestLiqo0xCommandsRegistered(t *testing.T) {
	for _, args := range [][]string{{"generate", "peer-info", "--help"}, {"apply", "peer-info", "--help"}} {
		code, stdout, stderr := run(args...)
		require.Equal(t, cmd.ExitOK, code, stderr)
		assert.Contains(t, stdout, "peer-info", args)
	}
	code, stdout, _ := run("authenticate", "--help")
	require.Equal(t, cmd.ExitOK, code)
	for _, flag := range []string{"--peer", "--kubeconfig-out", "--reissue", "--insecure-skip-tls-verify", "--auth-url"} {
		assert.Contains(t, stdout, flag)
	}
	code, stdout, _ = run("unauthenticate", "--help")
	require.Equal(t, cmd.ExitOK, code)
	for _, flag := range []string{"--yes", "--one-sided", "--remote-cluster-id"} {
		assert.Contains(t, stdout, flag)
	}
}

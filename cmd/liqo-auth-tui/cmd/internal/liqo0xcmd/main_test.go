//go:build cluster

package liqo0xcmd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package: "provider" and "consumer" get Liqo v0.10.1
// (the provider's auth server, the consumer's controllers); "plain" never
// does: this tool is the 0.x consumer there, after `init`.
var testLab = labtest.Lazy("provider", "consumer", "plain")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

// The clusters' identities, fixed for this lab.
const (
	providerID   = "7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
	providerName = "cmd-liqo0x-provider"
	consumerID   = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"
	consumerName = "cmd-liqo0x-consumer"
	plainID      = "plain-0x-consumer"
)

// result is what one command line did.
type result struct {
	code        int
	out, err    string
	elapsed     time.Duration
	commandLine string
}

// all is stdout and stderr together, to look for what must never appear.
func (r result) all() string { return r.out + r.err }

// lines are stderr's lines at level (INFO, WARN, ERRO).
func (r result) lines(level string) []string {
	var out []string
	for _, l := range strings.Split(r.err, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), level+" ") {
			out = append(out, l)
		}
	}
	return out
}

// run executes the command line in-process, as an admin types it.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	start := time.Now()
	code := cmd.Execute(args, strings.NewReader(stdin), &out, &errOut, nil)
	r := result{code: code, out: out.String(), err: errOut.String(), elapsed: time.Since(start), commandLine: strings.Join(args, " ")}
	t.Logf("$ liqo-auth-tui %s → exit %d in %s\nstdout:\n%sstderr:\n%s", r.commandLine, code, r.elapsed.Round(time.Millisecond), r.out, r.err)
	return r
}

// runOK is run that must exit 0.
func runOK(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, "", args...)
	require.Zero(t, r.code, "liqo-auth-tui %s failed: %s", r.commandLine, r.err)
	return r
}

// writeFile writes data to a new file of the test.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	return path
}

// requireMode checks a file holding a secret is readable by its owner only.
func requireMode(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "%s holds a secret: mode 0600", path)
}

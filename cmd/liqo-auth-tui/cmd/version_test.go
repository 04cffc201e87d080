package cmd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
)

// `version` and `--version` print the same line; -o json the details.
func TestVersion(t *testing.T) {
	code, line, errOut := run("version")
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.True(t, strings.HasPrefix(line, "liqo-auth-tui "), line)
	assert.Contains(t, line, "go1.")
	assert.Equal(t, 1, strings.Count(line, "\n"), line)

	code, flagLine, errOut := run("--version")
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Equal(t, line, flagLine)

	// As cobra's own --version did: the rest of the command line is ignored.
	code, flagLine, errOut = run("--version", "extra")
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Equal(t, line, flagLine)

	code, out, errOut := run("version", "-o", "json")
	require.Equal(t, cmd.ExitOK, code, errOut)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &info), out)
	assert.NotEmpty(t, info["version"])
	assert.NotEmpty(t, info["goVersion"])
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// page reads a generated page with roff's escaped hyphens unescaped.
func page(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err, "no page %s", name)
	return strings.ReplaceAll(string(b), `\-`, "-")
}

// One page per command, naming it and its flags, dated by
// SOURCE_DATE_EPOCH: two runs write the same bytes.
func TestManPagesNameEachCommandAndItsFlags(t *testing.T) {
	dir, again := t.TempDir(), t.TempDir()
	require.NoError(t, generate(dir, "1764201600")) // 2025-11-27
	require.NoError(t, generate(again, "1764201600"))

	root := page(t, dir, "liqo-auth-tui.1")
	assert.Contains(t, root, `.TH "LIQO-AUTH-TUI" "1" "Nov 2025"`)
	for _, want := range []string{"liqo-auth-tui - Authenticate two Liqo clusters", "--batch", "--remote-kubeconfig", "--role", "liqo-auth-tui-doctor(1)"} {
		assert.Contains(t, root, want)
	}
	doctor := page(t, dir, "liqo-auth-tui-doctor.1")
	for _, want := range []string{"liqo-auth-tui-doctor - Check this cluster's peerings", "liqo-auth-tui doctor [flags]", "--fix", "--remote-cluster-id", "--kubeconfig"} {
		assert.Contains(t, doctor, want)
	}
	assert.FileExists(t, filepath.Join(dir, "liqo-auth-tui-create-nonce.1"))

	pages, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Greater(t, len(pages), 30)
	for _, p := range pages {
		first, err := os.ReadFile(filepath.Join(dir, p.Name()))
		require.NoError(t, err)
		second, err := os.ReadFile(filepath.Join(again, p.Name()))
		require.NoError(t, err)
		assert.Equal(t, string(first), string(second), "%s differs between two runs", p.Name())
	}
}

// Without SOURCE_DATE_EPOCH the generator refuses (cobra/doc would date
// the pages now), and writes nothing.
func TestManRefusesWithoutSourceDateEpoch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man")
	err := generate(dir, "")
	require.ErrorContains(t, err, "set SOURCE_DATE_EPOCH")
	assert.NoDirExists(t, dir)
	require.ErrorContains(t, generate(dir, "yesterday"), "not Unix seconds")
}

// cobra/doc and md2man stay out of the released CLI (its size budget).
func TestManGeneratorIsNotLinkedIntoTheCLI(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/liqo-auth-tui").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := string(out)
	require.Contains(t, deps, "github.com/spf13/cobra\n")
	for _, pkg := range []string{"github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man"} {
		assert.NotContains(t, deps, pkg)
	}
}

package liqopeer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A folder without the build says which command builds it.
func TestDirMissingSaysHowToBuild(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	_, err := Dir()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "liqo-peer (Liqo v1.2.0) is not built")
	assert.Contains(t, err.Error(), "`make liqo-peer`")
}

// A complete folder is found through the environment variable.
func TestDirFromEnv(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"liqo-peer", "crd-replicator", ".complete"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o700))
	}
	for _, d := range []string{"crds", "clusterroles"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o700))
	}
	t.Setenv(DirEnv, dir)
	got, err := Dir()
	require.NoError(t, err)
	assert.Equal(t, dir, got)
}

// Manifests are read by object name; a folder without any is an error.
func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	_, err := readManifests(dir)
	assert.ErrorContains(t, err, "no manifests")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "r.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o600))
	got, err := readManifests(dir)
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, string(got["x"]))
}

package liqoproc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testBuild(t *testing.T) Build {
	t.Helper()
	env := "LIQOPROC_TEST_DIR"
	t.Setenv(env, "")
	return Build{Label: "Liqo v9", NotBuilt: "thing (Liqo v9) is not built", Env: env, Folder: "thing-v9",
		Files: []string{"bin", "crds", ".complete"}, Hint: "make thing"}
}

// A folder without the build says what is missing and which command builds it.
func TestDirMissingSaysHowToBuild(t *testing.T) {
	b := testBuild(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin"), nil, 0o700))
	t.Setenv(b.Env, dir)
	_, err := b.Dir()
	assert.EqualError(t, err, "thing (Liqo v9) is not built in "+dir+" (crds missing): build it with `make thing`")
}

// A complete folder is found through its environment variable, and without
// it under the cache root.
func TestDirFromEnvAndCache(t *testing.T) {
	b := testBuild(t)
	complete := func(dir string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "crds"), 0o700))
		for _, f := range []string{"bin", ".complete"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o700))
		}
	}
	dir := t.TempDir()
	complete(dir)
	t.Setenv(b.Env, dir)
	got, err := b.Dir()
	require.NoError(t, err)
	assert.Equal(t, dir, got)

	root := t.TempDir()
	complete(filepath.Join(root, "thing-v9"))
	t.Setenv(b.Env, "")
	t.Setenv(CacheEnv, root)
	got, err = b.Dir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "thing-v9"), got)
}

// Manifests are read by object name; a folder without any says to rebuild,
// and a manifest without a name is an error.
func TestReadManifests(t *testing.T) {
	b := testBuild(t)
	dir := t.TempDir()
	_, err := b.ReadManifests(dir)
	assert.ErrorContains(t, err, "no manifests in "+dir+": rebuild with `make thing`")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "r.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o600))
	got, err := b.ReadManifests(dir)
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, string(got["x"]))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o600))
	_, err = b.ReadManifests(dir)
	assert.ErrorContains(t, err, "no metadata.name")
}

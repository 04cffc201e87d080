package realliqov1

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// A folder without the build says which command builds it.
func TestDirMissingSaysHowToBuild(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	_, err := Dir("")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "liqo-peer (Liqo v1.2.0) is not built")
	assert.Contains(t, err.Error(), "`make liqo-peer`")
}

// Each release has its own cache folder; a release with no build says
// which ones there are.
func TestDirPerRelease(t *testing.T) {
	t.Setenv(liqoproc.CacheEnv, t.TempDir())
	_, err := Dir("v1.0.3")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "liqo-peer (Liqo v1.0.3) is not built")
	assert.Contains(t, err.Error(), "liqo-peer-v1.0.3")

	_, err = Dir("v1.0.2")
	require.EqualError(t, err, `no liqo-peer build of Liqo "v1.0.2": the releases are v1.2.0, v1.1.2, v1.0.3`)
}

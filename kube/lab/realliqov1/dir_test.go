package realliqov1

import (
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

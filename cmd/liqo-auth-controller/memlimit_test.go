package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMemoryLimitKeepsTheHeapWithinTheContainerLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(math.MaxInt64)

	require.NoError(t, applyMemoryLimit("256Mi"))
	assert.Equal(t, softLimit(256*1024*1024), debug.SetMemoryLimit(-1))
	require.NoError(t, applyMemoryLimit("268435456"), "the Deployment passes bytes")
	assert.Equal(t, softLimit(268435456), debug.SetMemoryLimit(-1))

	for _, bad := range []string{"lots", "-1Mi", "256MB!"} {
		err := applyMemoryLimit(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "want a size like 256Mi")
	}
	debug.SetMemoryLimit(math.MaxInt64)
	require.NoError(t, applyMemoryLimit(""), "no limit: nothing set")
	assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
}

func softLimit(bytes int64) int64 { return int64(float64(bytes) * heapShareOfLimit) }

package cmd

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --trusted-ca reaches the flows; a bad --api-server-override is a usage
// error before anything is contacted.
func TestEngineFlagsAdvertise(t *testing.T) {
	o, err := EngineFlags{APIServerOverride: "api.example:6443", TrustedCA: true}.options()
	require.NoError(t, err)
	assert.True(t, o.TrustedCA)
	assert.Equal(t, "api.example:6443", o.APIServerOverride)

	_, err = EngineFlags{APIServerOverride: "http://api.example"}.options()
	var usage *UsageError
	require.True(t, errors.As(err, &usage), "%v", err)
	assert.ErrorContains(t, err, "--api-server-override: API server address \"http://api.example\": only https is served")
}

//go:build cluster

package flows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// A ResourceSlice left on the consumer blocks unauthenticate, whose error
// gives the command that deletes it; once it ran, unauthenticate goes
// through.
func TestUnauthenticateRefusalGivesTheDeleteCommand(t *testing.T) {
	provider, consumer := authenticatedPair(t, "us-provider", "us-consumer")
	ctx := labtest.Context(t)
	_, err := flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: "leftover", ProviderID: "us-provider", CPU: "1"}, flows.SliceOptions{}, nil)
	require.NoError(t, err)

	o := flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}
	_, err = flows.Unauthenticate(ctx, o, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "resourceslices are still present on consumer cluster (1, e.g. liqo-tenant-us-provider/leftover): "+
		"delete them first: `liqo-auth-tui delete resourceslice leftover --remote-cluster-id us-provider`")

	// What the command does.
	require.NoError(t, flows.DeleteResourceSlice(ctx, consumer, "leftover", "us-provider"))
	_, err = flows.Unauthenticate(ctx, o, nil)
	require.NoError(t, err)
}

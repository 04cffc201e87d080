package peerings_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The lab of this package's tests, started by the first test that needs it.
var testLab = labtest.Lazy("provider", "consumer")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

// authenticatedPair is the lab's pair, authenticated.
func authenticatedPair(t *testing.T, providerID, consumerID string) (provider, consumer *kube.Cluster) {
	t.Helper()
	provider, consumer = testLab.Pair(t, providerID, consumerID)
	_, err := flows.Authenticate(labtest.Context(t), flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	return provider, consumer
}

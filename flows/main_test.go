package flows_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The lab of this package's tests, started by the first test that needs it.
var testLab = labtest.Lazy("provider", "consumer")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

// clusters returns the lab's clusters, starting them on first use.
func clusters(t testing.TB) []*lab.Cluster { return testLab.Clusters(t) }

// pair returns the provider and consumer of the lab, each in its own Liqo
// namespace so that tests with different cluster IDs stay apart.
func pair(t *testing.T, providerID, consumerID string) (provider, consumer *kube.Cluster) {
	t.Helper()
	return testLab.Pair(t, providerID, consumerID)
}

// authenticatedPair is pair, authenticated.
func authenticatedPair(t *testing.T, providerID, consumerID string) (provider, consumer *kube.Cluster) {
	t.Helper()
	provider, consumer = pair(t, providerID, consumerID)
	_, err := flows.Authenticate(labtest.Context(t), flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	return provider, consumer
}

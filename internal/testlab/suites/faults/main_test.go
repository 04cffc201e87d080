package faults_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package's tests, started by the first test that needs it:
// two provider/consumer pairs of clusters, so that the provider's faults
// and the consumer's run at once, each stream on its own pair. The faults
// stop and restart its API servers: no other package shares it.
var testLab = labtest.Lazy("provider", "consumer", "provider-b", "consumer-b")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

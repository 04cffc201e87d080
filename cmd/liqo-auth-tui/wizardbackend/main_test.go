package wizardbackend_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package's tests, started by the first test that needs it.
var testLab = labtest.Lazy("provider", "consumer")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

// clusters returns the lab's clusters, starting them on first use.
func clusters(t testing.TB) []*lab.Cluster { return testLab.Clusters(t) }

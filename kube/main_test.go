package kube_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// Real control planes shared by this package's tests, started by the first
// test that needs them: two plain ones and a third that pretends to have
// Liqo installed.
var testLab = labtest.Lazy("provider", "consumer", "withliqo")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

// clusters returns the lab's clusters, starting them on first use.
func clusters(t testing.TB) []*lab.Cluster { return testLab.Clusters(t) }

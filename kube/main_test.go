package kube_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

// Real control planes shared by this package's tests: two plain ones and a
// third that pretends to have Liqo installed.
var clusters []*lab.Cluster

func TestMain(m *testing.M) {
	os.Exit(labtest.Main(m, &clusters, "provider", "consumer", "withliqo"))
}

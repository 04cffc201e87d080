package wizardbackend_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

var clusters []*lab.Cluster

func TestMain(m *testing.M) {
	os.Exit(labtest.Main(m, &clusters, "provider", "consumer"))
}

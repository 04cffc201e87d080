//go:build cluster

package doctorpeering_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package: a provider and a consumer cluster, shared by
// the tests, which keep apart by their own cluster IDs (hence namespaces).
var testLab = labtest.Lazy("provider", "consumer")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

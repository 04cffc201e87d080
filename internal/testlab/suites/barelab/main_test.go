package barelab_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package: "consumer" is initialised by the tests (its
// CRDs installed); "bare" never is, and has no authentication.liqo.io CRDs.
var testLab = labtest.Lazy("consumer", "bare")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

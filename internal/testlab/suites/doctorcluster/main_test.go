//go:build cluster

package doctorcluster_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package: the tests share "main", each in a Liqo
// namespace of its own; "bare" is never initialised but by the CRD test,
// and "liqo" gets Liqo v1's CRDs, since CRDs are cluster-wide. CSRs are
// cluster-wide too: the tests do not run in parallel, and each deletes
// the CSRs it made.
var testLab = labtest.Lazy("main", "bare", "liqo")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

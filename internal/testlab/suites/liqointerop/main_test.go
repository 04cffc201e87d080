package liqointerop_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// The lab of this package: "liqo" gets Liqo's CRDs and runs liqo-peer;
// "ours" is initialised by this project (`liqo-auth-tui init`) and served by
// its in-process controllers.
var testLab = labtest.Lazy("liqo", "ours")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

package cmd_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
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

// run executes the command line in-process and returns the exit code,
// stdout and stderr.
func run(args ...string) (int, string, string) {
	return runWithInput("", args...)
}

// runWithInput is run with stdin.
func runWithInput(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := cmd.Execute(args, strings.NewReader(stdin), &out, &errOut, nil)
	return code, out.String(), errOut.String()
}

package version

import (
	"os/exec"
	"strings"
	"testing"
)

// Every binary the Makefile builds carries the version `make build` stamps:
// `make demo` too, so that --version of the demo's binaries says which
// build they are. make -n prints the recipes without running them; make
// is what runs this test (`make test`, which CI installs it for).
func TestMakefileStampsEveryBuild(t *testing.T) {
	const stamp = "-X github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version.Version=v9.9.9-stamp"
	for _, target := range []string{"build", "demo"} {
		out, err := exec.Command("make", "-n", "-C", "../../..", target,
			"VERSION=v9.9.9-stamp", "REVISION=0123456789abcdef", "KUBE_BINARIES=/nonexistent").CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		builds := 0
		for _, line := range strings.Split(string(out), "\n") {
			if !strings.Contains(line, " build ") || !strings.Contains(line, "./cmd/") {
				continue
			}
			builds++
			if !strings.Contains(line, stamp) {
				t.Errorf("make %s builds without the version: %s", target, line)
			}
		}
		if builds == 0 {
			t.Errorf("make -n %s shows no go build:\n%s", target, out)
		}
	}
}

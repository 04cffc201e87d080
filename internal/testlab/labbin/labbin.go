// Package labbin gives tests the project's commands as binaries: the ones
// `make test-binaries` built once before the tests (make test sets
// LIQO_AUTH_TEST_BINARIES), else a `go build` of their own. Several test
// packages starting at once on a cold machine would otherwise each compile
// the same packages beside each other.
package labbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Prebuilt names the folder of the binaries make test-binaries built.
const Prebuilt = "LIQO_AUTH_TEST_BINARIES"

const module = "github.com/liqo-auth-tui/liqo-auth-tui/cmd/"

// Path returns the binary of the command cmd/<name>: the prebuilt one,
// else one built into dir.
func Path(dir, name string) (string, error) {
	if pre := os.Getenv(Prebuilt); pre != "" {
		path := filepath.Join(pre, name)
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%s=%s: %w (make test-binaries builds it)", Prebuilt, pre, err)
		}
		return path, nil
	}
	path := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", path, module+name).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", module+name, err, out)
	}
	return path, nil
}

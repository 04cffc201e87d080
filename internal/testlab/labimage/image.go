// Package labimage builds the controller's image for the lab's Nodes as
// `make image` builds it (hack/image, this host's architecture only), once
// per test process, and loads it into Nodes without a registry; and wraps
// other static binaries (Liqo's, the lab's probes) into one-layer images
// the same way (Wrap).
package labimage

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// Version tags the image built here (beside latest, the tag of
// kube.ControllerImage, so that the manifests' default image runs as it is).
const Version = "v0.0.0-lab"

// Ref is the image built here, by its version tag.
const Ref = "ghcr.io/liqo-auth-tui/liqo-auth-controller:" + Version

// Prebuilt names the archive `make lab-image` wrote (make test sets it):
// the tests then load it instead of building their own.
const Prebuilt = "LIQO_AUTH_LAB_IMAGE"

// Controller returns the docker-archive of the controller's image: the
// prebuilt one, else one built on the first call of the process (its
// compiled packages then come from the Go build cache).
func Controller(ctx context.Context) (string, error) {
	if path := os.Getenv(Prebuilt); path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%s=%s: %w (make lab-image builds it)", Prebuilt, path, err)
		}
		return path, nil
	}
	return wrapped.do(Ref, func() (string, error) {
		root, dir, tool, err := workspace(ctx)
		if err != nil {
			return "", err
		}
		archive := filepath.Join(dir, "liqo-auth-controller-image.tar")
		return archive, runTool(ctx, tool, "building the controller's image (hack/image)",
			"--repo="+root, "--arch="+runtime.GOARCH, "--oci-dir=", "--tar="+archive,
			"--version="+Version, "--revision=0000000000000000000000000000000000000000")
	})
}

// LoadController builds the image (once) and loads it into each Node.
func LoadController(ctx context.Context, nodes ...*lab.Node) error {
	archive, err := Controller(ctx)
	if err != nil {
		return err
	}
	return load(ctx, archive, nodes)
}

func load(ctx context.Context, archive string, nodes []*lab.Node) error {
	for _, n := range nodes {
		if err := n.LoadImage(ctx, archive); err != nil {
			return err
		}
	}
	return nil
}

// workspace is the repository, this process's scratch directory and
// hack/image built for this host (once per process).
func workspace(ctx context.Context) (root, dir, tool string, err error) {
	if root, err = repoRoot(); err != nil {
		return "", "", "", err
	}
	if dir, err = scratchDir(); err != nil {
		return "", "", "", err
	}
	tool, err = commands.do("hack/image", func() (string, error) {
		tool := filepath.Join(dir, "hack-image")
		return tool, goBuild(ctx, filepath.Join(root, "hack", "image"), hostEnv, "building hack/image", "-o", tool, ".")
	})
	return root, dir, tool, err
}

// hostEnv builds for this host: the image builder runs here, the
// controller inside it is static whatever the caller's GOFLAGS.
var hostEnv = []string{"GOOS=", "GOARCH=", "GOFLAGS="}

func goBuild(ctx context.Context, dir string, env []string, what string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return combined(cmd, what)
}

func runTool(ctx context.Context, tool, what string, args ...string) error {
	return combined(exec.CommandContext(ctx, tool, args...), what)
}

func combined(cmd *exec.Cmd, what string) error {
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", what, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// repoRoot is the repository this file is part of (tests run from source).
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("labimage: no source path")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "hack", "image", "main.go")); err != nil {
		return "", fmt.Errorf("labimage: the repository's hack/image is not at %s: %w", root, err)
	}
	return root, nil
}

// Remove deletes the archives and binaries built by this process, if any
// (TestMain calls it after the tests).
func Remove() {
	if scratch.dir != "" {
		_ = os.RemoveAll(scratch.dir)
	}
}

// Main is the TestMain of a package whose tests load images: it runs the
// tests on l's clusters, then removes what this process built.
func Main(m *testing.M, l *labtest.Lab) {
	code := l.Run(m)
	Remove()
	os.Exit(code)
}

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
	"sync"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// Version tags the image built here (beside latest, the tag of
// kube.ControllerImage, so that the manifests' default image runs as it is).
const Version = "v0.0.0-lab"

// Ref is the image built here, by its version tag.
const Ref = "ghcr.io/liqo-auth-tui/liqo-auth-controller:" + Version

var built struct {
	once    sync.Once
	archive string
	err     error
}

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
	built.once.Do(func() { built.archive, built.err = build(ctx) })
	return built.archive, built.err
}

// LoadController builds the image (once) and loads it into each Node.
func LoadController(ctx context.Context, nodes ...*lab.Node) error {
	archive, err := Controller(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if err := n.LoadImage(ctx, archive); err != nil {
			return err
		}
	}
	return nil
}

func build(ctx context.Context) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "liqo-auth-labimage-")
	if err != nil {
		return "", err
	}
	archive := filepath.Join(dir, "liqo-auth-controller-image.tar")
	cmd := exec.CommandContext(ctx, "go", "run", ".", "--repo="+root, "--arch="+runtime.GOARCH, "--oci-dir=", "--tar="+archive,
		"--version="+Version, "--revision=0000000000000000000000000000000000000000")
	cmd.Dir = filepath.Join(root, "hack", "image")
	// The builder runs on this host; the controller inside is static.
	cmd.Env = append(os.Environ(), "GOOS=", "GOARCH=", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the controller's image (hack/image): %v: %s", err, strings.TrimSpace(string(out)))
	}
	return archive, nil
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
	if built.archive != "" {
		_ = os.RemoveAll(filepath.Dir(built.archive))
	}
	if scratch.dir != "" {
		_ = os.RemoveAll(scratch.dir)
	}
}

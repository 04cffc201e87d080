package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// PauseImage is the name the lab's Nodes know their sandbox image by
// (containerd's CRI config pins it; internal/testlab/node imports it).
const PauseImage = "localhost/liqo-auth-lab/pause:1"

// writePauseImage builds internal/testlab/cmd/lab-pause for the host's
// architecture and writes it as a one-layer docker-archive tagged
// PauseImage, for `ctr images import`.
func writePauseImage(repo, path string, created time.Time) error {
	work, err := os.MkdirTemp("", "liqo-auth-pause-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "pause")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -buildid=", "-o", bin, "./internal/testlab/cmd/lab-pause")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./internal/testlab/cmd/lab-pause: %w", err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	return writeOneLayerImage([]file{{name: "pause", mode: 0o755, contents: b}}, v1.Config{Entrypoint: []string{"/pause"}},
		"liqo-auth-tui hack/image pause", PauseImage, path, created)
}

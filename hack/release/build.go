package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const (
	project    = "liqo-auth-tui"
	controller = "liqo-auth-controller"
	versionPkg = "github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version"
)

// target is one binary for one platform.
type target struct {
	binary, goos, goarch string
}

// targets are what a release ships: the CLI everywhere an admin works, the
// controller where it (or a developer running it outside a cluster) runs.
func targets() []target {
	var ts []target
	for _, goos := range []string{"linux", "darwin"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			ts = append(ts, target{project, goos, goarch}, target{controller, goos, goarch})
		}
	}
	return append(ts, target{project, "windows", "amd64"})
}

func (t target) platform() string { return t.goos + "/" + t.goarch }

// file is the binary's name on its platform.
func (t target) file() string {
	if t.goos == "windows" {
		return t.binary + ".exe"
	}
	return t.binary
}

// dir is where the binaries of t's platform are kept in dist/.
func (t target) dir() string { return t.goos + "_" + t.goarch }

// archive is the name goreleaser gives by default,
// {{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }} (the version
// without its leading v; amd64 v1 and arm64 v8.0 add nothing), zip on
// Windows. Each binary has archives of its own, named after it (goreleaser's
// default archive would hold both), so that kubectl users do not download
// the controller.
func (t target) archive(version string) string {
	ext := ".tar.gz"
	if t.goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", t.binary, strings.TrimPrefix(version, "v"), t.goos, t.goarch, ext)
}

func checksumsFile(version string) string {
	return fmt.Sprintf("%s_%s_checksums.txt", project, strings.TrimPrefix(version, "v"))
}

var semverTag = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// releaseVersion is git describe's version when it starts from a semver tag
// (v0.3.0, v0.3.0-4-g1a2b3c4-dirty); else, as goreleaser's snapshots of an
// untagged tree, v0.0.0-SNAPSHOT-<short commit>: krew and the archive names
// need a semantic version.
func releaseVersion(describe, revision string) string {
	if semverTag.MatchString(describe) {
		return describe
	}
	short := revision
	if len(short) > 7 {
		short = short[:7]
	}
	if short == "" {
		short = "unknown"
	}
	v := "v0.0.0-SNAPSHOT-" + short
	if strings.HasSuffix(describe, "-dirty") {
		v += "-dirty"
	}
	return v
}

// build compiles ts (all for the same platform) into their dir in one go
// build, so that the packages they share compile once and they link in
// parallel. Everything that could differ between machines is fixed: no cgo,
// no paths, no build ID, the default GOAMD64/GOARM64 levels and no GOFLAGS
// from the environment.
func build(c config, ts []target) error {
	dir := filepath.Join(c.dist, ts[0].dir())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	args := []string{"build", "-trimpath", "-ldflags", ldflags(c), "-o", dir + string(filepath.Separator)}
	for _, t := range ts {
		args = append(args, "./cmd/"+t.binary)
	}
	start := time.Now()
	cmd := exec.Command("go", args...)
	cmd.Dir = c.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+ts[0].goos, "GOARCH="+ts[0].goarch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %w", ts[0].platform(), err)
	}
	c.logf("built %d binaries for %s in %s", len(ts), ts[0].platform(), time.Since(start).Round(100*time.Millisecond))
	return nil
}

func ldflags(c config) string {
	return fmt.Sprintf("-s -w -buildid= -X %s.Version=%s -X %s.Revision=%s", versionPkg, c.version, versionPkg, c.revision)
}

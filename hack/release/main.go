// Command release builds the release archives (make release): the CLI and
// the controller for each platform, stamped with the version, stripped and
// reproducible, archived and named as goreleaser names them, with a SHA-256
// checksums file and a krew plugin manifest; and checks the binaries' sizes
// (make size). Kept in its own module so that krew stays out of the main
// module.
//
//	go run . --repo ../.. --version v0.3.0 --revision $(git rev-parse HEAD)
//	go run . size --repo ../..
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// config says what to release.
type config struct {
	repo, dist        string // repository root; output directory
	version, revision string // stamped into the binaries
	releaseURL        string // where the archives are downloaded from (krew)
	modTime           time.Time
	only              string // "os/arch": that platform's CLI only (tests)
	quiet             bool
}

func (c config) logf(format string, args ...any) {
	if !c.quiet {
		fmt.Fprintf(os.Stderr, "release: "+format+"\n", args...)
	}
}

func main() {
	sizeMode := len(os.Args) > 1 && os.Args[1] == "size"
	if sizeMode {
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	var c config
	var describe string
	flag.StringVar(&c.repo, "repo", "../..", "repository root")
	flag.StringVar(&c.dist, "dist", "dist", "output directory (relative to --repo), replaced")
	flag.StringVar(&describe, "version", "", "git describe of the tree: a v-semver tag as is, else a v0.0.0-SNAPSHOT-<commit> version")
	flag.StringVar(&c.revision, "revision", "", "VCS revision stamped into the binaries")
	flag.StringVar(&c.releaseURL, "release-url", "", "base URL of the archives in the krew manifest (default: the GitHub release of the version)")
	flag.StringVar(&c.only, "only", "", "build only this os/arch's CLI archive, e.g. "+runtime.GOOS+"/"+runtime.GOARCH)
	bin := flag.String("bin", "bin", "make build's binaries, whose sizes `size` prints too (relative to --repo)")
	flag.Parse()
	if !filepath.IsAbs(c.dist) {
		c.dist = filepath.Join(c.repo, c.dist)
	}
	// go build runs in the repository: its -o must not be relative to here.
	dist, err := filepath.Abs(c.dist)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	c.dist = dist
	if sizeMode {
		err = reportSizes(os.Stdout, c.dist, filepath.Join(c.repo, *bin))
	} else {
		c.version = releaseVersion(describe, c.revision)
		if c.releaseURL == "" {
			c.releaseURL = homepage + "/releases/download/" + c.version
		}
		if c.modTime, err = sourceDate(c.repo); err == nil {
			err = release(c)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// release builds, archives and checksums every target (or c.only's CLI)
// into c.dist, and writes the krew manifest.
func release(c config) error {
	start := time.Now()
	if err := os.RemoveAll(c.dist); err != nil {
		return err
	}
	byPlatform := map[string][]target{}
	var order []string
	for _, t := range targets() {
		if c.only != "" && (t.platform() != c.only || t.binary != project) {
			continue
		}
		if byPlatform[t.platform()] == nil {
			order = append(order, t.platform())
		}
		byPlatform[t.platform()] = append(byPlatform[t.platform()], t)
	}
	if len(order) == 0 {
		return fmt.Errorf("no target for %s: one of linux, darwin or windows and amd64 or arm64", c.only)
	}
	var archives []string
	for _, p := range order {
		if err := build(c, byPlatform[p]); err != nil {
			return err
		}
		for _, t := range byPlatform[p] {
			a, err := writeArchive(c, t)
			if err != nil {
				return err
			}
			archives = append(archives, a)
		}
	}
	sums, err := writeChecksums(filepath.Join(c.dist, checksumsFile(c.version)), archives)
	if err != nil {
		return err
	}
	if err := writeKrewManifest(filepath.Join(c.dist, pluginManifest), c.version, c.releaseURL, sums); err != nil {
		return err
	}
	c.logf("%s: %d archives, %s and %s in %s (%s)", c.version, len(archives), checksumsFile(c.version),
		pluginManifest, c.dist, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// sourceDate is the archives' file time: SOURCE_DATE_EPOCH, else the
// commit's time, so that a commit always gives the same archives.
func sourceDate(repo string) (time.Time, error) {
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		out, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%ct").Output()
		if err != nil {
			return time.Time{}, fmt.Errorf("the commit time (git log): %w; set SOURCE_DATE_EPOCH", err)
		}
		epoch = strings.TrimSpace(string(out))
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a Unix time in seconds", epoch)
	}
	return time.Unix(sec, 0).UTC(), nil
}

package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testVersion  = "v9.8.7-releasetest"
	testRevision = "0123456789abcdef0123456789abcdef01234567"
)

var testModTime = time.Unix(1700000000, 0).UTC()

// hostRelease is `make release` of the host platform's CLI only (the one
// archive the tests install), built once for the package's tests.
var hostRelease = sync.OnceValues(func() (config, error) {
	c := testConfig(filepath.Join(testRoot, "dist"))
	start := time.Now()
	err := release(c)
	buildTime = time.Since(start)
	return c, err
})

var buildTime time.Duration

// testRoot holds what the package's tests share: the host release, krew.
var testRoot string

func TestMain(m *testing.M) {
	var err error
	if testRoot, err = os.MkdirTemp("", "liqo-auth-release-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(testRoot)
	os.Exit(code)
}

func testConfig(dist string) config {
	return config{repo: "../..", dist: dist, version: testVersion, revision: testRevision,
		releaseURL: "https://example.com/releases/" + testVersion, modTime: testModTime,
		only: runtime.GOOS + "/" + runtime.GOARCH, quiet: true}
}

func hostCLI() target { return target{project, runtime.GOOS, runtime.GOARCH} }

func mustHostRelease(t *testing.T) config {
	t.Helper()
	c, err := hostRelease()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The host's archive holds the binary and the README, root-owned, at the
// commit's time; the binary inside is stripped, within its size limit and
// says the stamped version; and a second build gives the same bytes.
func TestReleaseArchiveRunsAndIsReproducible(t *testing.T) {
	c := mustHostRelease(t)
	t.Logf("host release built in %s", buildTime.Round(time.Millisecond))
	archive := filepath.Join(c.dist, hostCLI().archive(testVersion))
	wantName := "liqo-auth-tui_9.8.7-releasetest_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	if filepath.Base(archive) != wantName {
		t.Fatalf("archive %s, want %s", filepath.Base(archive), wantName)
	}

	dir := t.TempDir()
	names := extractTarGz(t, archive, dir)
	if got := strings.Join(names, " "); got != "README.md liqo-auth-tui" {
		t.Errorf("archive members %q, want the binary and README.md, sorted", got)
	}
	bin := filepath.Join(dir, project)
	if fi, err := os.Stat(bin); err != nil || fi.Size() > sizeLimits[project] {
		t.Errorf("binary: %v, size over %d", err, sizeLimits[project])
	}
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	var info struct{ Version, Revision, Platform string }
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("version output %q: %v", out, err)
	}
	if info.Version != testVersion || info.Revision != testRevision || info.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version says %+v, want %s %s", info, testVersion, testRevision)
	}

	sums, err := os.ReadFile(filepath.Join(c.dist, checksumsFile(testVersion)))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sha256File(archive)
	if err != nil {
		t.Fatal(err)
	}
	if want := sum + "  " + wantName + "\n"; string(sums) != want {
		t.Errorf("checksums file %q, want %q", sums, want)
	}

	// Again, elsewhere: go build links again (its cache keeps no binaries).
	again := testConfig(filepath.Join(t.TempDir(), "dist"))
	start := time.Now()
	if err := release(again); err != nil {
		t.Fatal(err)
	}
	t.Logf("rebuilt in %s", time.Since(start).Round(time.Millisecond))
	sums2, err := os.ReadFile(filepath.Join(again.dist, checksumsFile(testVersion)))
	if err != nil {
		t.Fatal(err)
	}
	if string(sums2) != string(sums) {
		t.Errorf("a second build differs:\n%s\n%s", sums, sums2)
	}
}

// extractTarGz unpacks archive into dir, checks that every member is a
// root-owned regular file with a fixed mode and time, and returns the names
// in the archive's order.
func extractTarGz(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header name %q, time %s: want neither", gz.Name, gz.ModTime)
	}
	var names []string
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		wantMode := int64(0o644)
		if h.Name == project {
			wantMode = 0o755
		}
		if h.Typeflag != tar.TypeReg || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Mode != wantMode || !h.ModTime.Equal(testModTime) {
			t.Errorf("member %s: type %c, uid %d gid %d %q, mode %o, time %s", h.Name, h.Typeflag, h.Uid, h.Gid, h.Uname, h.Mode, h.ModTime)
		}
		names = append(names, h.Name)
		out, err := os.OpenFile(filepath.Join(dir, filepath.Base(h.Name)), os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A v-tag's describe is the version; an untagged tree's is a goreleaser
// snapshot's, still semver for krew; -dirty stays visible.
func TestReleaseVersion(t *testing.T) {
	for _, tc := range []struct{ describe, revision, want string }{
		{"v0.3.0", testRevision, "v0.3.0"},
		{"v0.3.0-4-g1a2b3c4-dirty", testRevision, "v0.3.0-4-g1a2b3c4-dirty"},
		{"0123456", testRevision, "v0.0.0-SNAPSHOT-0123456"},
		{"0123456-dirty", testRevision, "v0.0.0-SNAPSHOT-0123456-dirty"},
		{"dev", "", "v0.0.0-SNAPSHOT-unknown"},
	} {
		if got := releaseVersion(tc.describe, tc.revision); got != tc.want {
			t.Errorf("releaseVersion(%q, %q) = %q, want %q", tc.describe, tc.revision, got, tc.want)
		}
	}
}

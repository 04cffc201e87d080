package main

import (
	"archive/tar"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	testVersion  = "v0.0.0-imagetest"
	testRevision = "0123456789abcdef0123456789abcdef01234567"
)

// TestMain builds the index once (two cross builds of the controller are
// the cost); the tests read what it wrote.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "liqo-auth-image-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	built.ociDir, built.tarPath = filepath.Join(dir, "oci"), filepath.Join(dir, "image.tar")
	s := spec{repo: "../..", archs: []string{"amd64", "arm64"}, version: testVersion, revision: testRevision,
		source: "https://example.com/src", caBundle: "/etc/ssl/certs/ca-certificates.crt", created: time.Unix(0, 0).UTC()}
	start := time.Now()
	built.err = run(s, outputs{ociDir: built.ociDir, tarPath: built.tarPath, tarArch: runtime.GOARCH})
	built.took = time.Since(start)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var built struct {
	ociDir, tarPath string
	took            time.Duration
	err             error
}

func requireBuilt(t *testing.T) {
	t.Helper()
	if built.err != nil {
		t.Fatal(built.err)
	}
	t.Logf("index built in %s", built.took.Round(time.Millisecond))
}

// The host's image reads back the same from the docker-archive and from
// the index, its config runs a non-root entrypoint, and the binary unpacked
// from its layers runs.
func TestImage(t *testing.T) {
	requireBuilt(t)
	fromTar := imageFromTarball(t, built.tarPath, repository+":"+testVersion)
	fromLayout := platformImages(t, built.ociDir)[runtime.GOARCH]
	// A docker archive keeps the config, not the manifest: compare configs.
	if a, b := configName(t, fromTar), configName(t, fromLayout); a != b {
		t.Fatalf("tarball image config %s, OCI layout image config %s", a, b)
	}

	cf, err := fromLayout.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	c := cf.Config
	if c.User != "65532:65532" || strings.Join(c.Entrypoint, " ") != "/liqo-auth-controller" || c.WorkingDir != "/home/nonroot" {
		t.Errorf("config user %q, entrypoint %q, working dir %q", c.User, c.Entrypoint, c.WorkingDir)
	}
	for k, want := range map[string]string{"org.opencontainers.image.version": testVersion,
		"org.opencontainers.image.revision": testRevision, "org.opencontainers.image.source": "https://example.com/src"} {
		if c.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], want)
		}
	}

	root := t.TempDir()
	modes := unpack(t, fromTar, root)
	for path, want := range map[string]os.FileMode{"liqo-auth-controller": 0o755, "tmp/": os.ModeSticky | 0o777, "etc/passwd": 0o644} {
		if modes[path] != want {
			t.Errorf("%s mode %v, want %v", path, modes[path], want)
		}
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if !strings.Contains(string(passwd), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd:\n%s", passwd)
	}
	group, _ := os.ReadFile(filepath.Join(root, "etc/group"))
	if !strings.Contains(string(group), "nonroot:x:65532:") {
		t.Errorf("/etc/group:\n%s", group)
	}

	bin := filepath.Join(root, "liqo-auth-controller")
	assertStatic(t, bin)
	version := runBinary(t, bin, "--version")
	if want := "liqo-auth-controller " + testVersion + " (rev 0123456, go"; !strings.HasPrefix(version, want) {
		t.Errorf("--version = %q, want prefix %q", version, want)
	}
	help := runBinary(t, bin, "--help")
	for _, group := range []string{"Cluster flags:", "Controller flags:", "Observability flags:", "Logging flags:"} {
		if !strings.Contains(help, group) {
			t.Errorf("--help lacks %q", group)
		}
	}
}

func imageFromTarball(t *testing.T, path, ref string) v1.Image {
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(path, &tag)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// platformImages opens the layout's tagged index and returns its image
// for each architecture, checking that both tags name that one index.
func platformImages(t *testing.T, dir string) map[string]v1.Image {
	t.Helper()
	root, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := root.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	var digest v1.Hash
	for _, d := range m.Manifests {
		if ref := d.Annotations["org.opencontainers.image.ref.name"]; ref != "" {
			refs, digest = append(refs, ref), d.Digest
			if d.MediaType != types.OCIImageIndex || d.Digest != m.Manifests[0].Digest {
				t.Errorf("tag %s names %s %s, want the index %s", ref, d.MediaType, d.Digest, m.Manifests[0].Digest)
			}
		}
	}
	if strings.Join(refs, " ") != testVersion+" latest" {
		t.Fatalf("layout refs %q", refs)
	}
	index, err := root.ImageIndex(digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	images := map[string]v1.Image{}
	for _, d := range im.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" {
			t.Fatalf("index entry %s for platform %v", d.Digest, d.Platform)
		}
		if images[d.Platform.Architecture], err = index.Image(d.Digest); err != nil {
			t.Fatal(err)
		}
	}
	if len(images) != 2 || images["amd64"] == nil || images["arm64"] == nil {
		t.Fatalf("index platforms %v, want linux/amd64 and linux/arm64", im.Manifests)
	}
	return images
}

func configName(t *testing.T, img v1.Image) v1.Hash {
	d, err := img.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// unpack writes the image's flattened filesystem into root and returns
// the mode of each entry (directories end in /).
func unpack(t *testing.T, img v1.Image, root string) map[string]os.FileMode {
	rc := mutate.Extract(img)
	defer rc.Close()
	modes := map[string]os.FileMode{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return modes
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, filepath.FromSlash(h.Name)) // mutate.Extract drops unsafe paths
		switch h.Typeflag {
		case tar.TypeDir:
			modes[strings.TrimSuffix(h.Name, "/")+"/"] = h.FileInfo().Mode().Perm() | h.FileInfo().Mode()&os.ModeSticky
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			modes[h.Name] = h.FileInfo().Mode().Perm()
			err = writeFile(path, tr, h.FileInfo().Mode().Perm())
		default:
			t.Errorf("unexpected entry %s (type %c)", h.Name, h.Typeflag)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(path string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// assertStatic checks the binary needs no dynamic loader: the base image
// has no libc.
func assertStatic(t *testing.T, bin string) {
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is dynamically linked", bin)
		}
	}
}

func runBinary(t *testing.T, bin string, args ...string) string {
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	return string(out)
}

package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// --wrap-binary: one layer holding the binary (mode kept) and /tmp, run as
// /<name> by the non-root user, under the tag asked for.
func TestWrapBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "crd-replicator")
	if err := os.WriteFile(bin, []byte("#!static"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := wrapOptions{binary: bin, ref: "localhost/liqo-auth-lab/crd-replicator:v1.2.0", tarPath: filepath.Join(dir, "out", "image.tar")}
	if err := o.check(); err != nil {
		t.Fatal(err)
	}
	if err := writeWrappedImage(o, time.Unix(0, 0).UTC()); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag(o.ref)
	img, err := tarball.ImageFromPath(o.tarPath, &tag)
	if err != nil {
		t.Fatalf("the archive holds no image tagged %s: %v", o.ref, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cf.Config.Entrypoint; len(got) != 1 || got[0] != "/crd-replicator" {
		t.Errorf("entrypoint %v, want [/crd-replicator]", got)
	}
	if cf.Config.User != "65532:65532" || cf.Architecture != runtime.GOARCH || cf.OS != "linux" {
		t.Errorf("user %q on %s/%s, want 65532:65532 on linux/%s", cf.Config.User, cf.OS, cf.Architecture, runtime.GOARCH)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want one", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	modes := map[string]int64{}
	for tr := tar.NewReader(rc); ; {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		modes[h.Name] = h.Mode
	}
	if len(modes) != 2 || modes["crd-replicator"] != 0o755 || modes["tmp/"] != 0o1777 {
		t.Errorf("layer entries %v, want crd-replicator 0755 and tmp/ 01777", modes)
	}
}

// Without a tag or an output it says what is missing.
func TestWrapBinaryNeedsRefAndTar(t *testing.T) {
	for _, o := range []wrapOptions{{binary: "b"}, {binary: "b", ref: "x:1"}, {binary: "b", ref: "Not A Ref", tarPath: "o"}} {
		if err := o.check(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

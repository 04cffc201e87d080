package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	binaryName = "liqo-auth-controller"
	// The distroless "nonroot" user, as the Deployment's securityContext expects.
	nonRoot    = 65532
	homeDir    = "/home/nonroot"
	versionPkg = "github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version"
)

// spec says what to build.
type spec struct {
	repo              string   // repository root
	archs             []string // GOARCH of each image in the index (the OS is linux)
	version, revision string
	source            string    // org.opencontainers.image.source
	caBundle          string    // host file copied to /etc/ssl/certs; "" or missing: none
	created           time.Time // image and file times, fixed for reproducible images
	workDir           string    // where the binary is built
}

// buildImage compiles the controller for linux/arch and assembles its
// image: a base layer (users, /tmp, CA certificates) and a layer with the
// binary. It returns the binary's path too, for its SBOM.
func buildImage(s spec, arch string) (v1.Image, string, error) {
	bin, err := buildBinary(s, arch)
	if err != nil {
		return nil, "", err
	}
	base, err := baseLayer(s)
	if err != nil {
		return nil, "", err
	}
	app, err := binaryLayer(s, bin)
	if err != nil {
		return nil, "", err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{CreatedBy: "liqo-auth-tui hack/image: static non-root base", Created: v1.Time{Time: s.created}}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer, History: v1.History{CreatedBy: "liqo-auth-tui hack/image: go build ./cmd/" + binaryName, Created: v1.Time{Time: s.created}}})
	if err != nil {
		return nil, "", err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, "", err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: s.created}
	cf.Config = v1.Config{
		Entrypoint: []string{"/" + binaryName},
		User:       fmt.Sprintf("%d:%d", nonRoot, nonRoot),
		WorkingDir: homeDir,
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels: map[string]string{
			"org.opencontainers.image.title":    binaryName,
			"org.opencontainers.image.version":  s.version,
			"org.opencontainers.image.revision": s.revision,
			"org.opencontainers.image.source":   s.source,
		},
	}
	img, err = mutate.ConfigFile(img, cf)
	return img, bin, err
}

// buildBinary builds a static binary for linux/arch, stamped with the
// version. The same sources give the same bytes: no cgo, paths or build ID,
// the default GOAMD64/GOARM64 levels and no GOFLAGS from the environment.
func buildBinary(s spec, arch string) (string, error) {
	out := filepath.Join(s.workDir, arch, binaryName)
	ldflags := fmt.Sprintf("-s -w -buildid= -X %s.Version=%s -X %s.Revision=%s", versionPkg, s.version, versionPkg, s.revision)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/"+binaryName)
	cmd.Dir = s.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/%s for linux/%s: %w", binaryName, arch, err)
	}
	return out, nil
}

// file is one entry of a layer.
type file struct {
	name     string // relative, directories end in /
	mode     int64
	uid      int
	contents []byte
}

func baseLayer(s spec) (v1.Layer, error) {
	files := []file{
		{name: "etc/", mode: 0o755},
		{name: "etc/passwd", mode: 0o644, contents: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			fmt.Sprintf("nonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", nonRoot, nonRoot, homeDir))},
		{name: "etc/group", mode: 0o644, contents: []byte(fmt.Sprintf("root:x:0:\nnobody:x:65534:\nnonroot:x:%d:\n", nonRoot))},
		// Go's resolver reads it: names in /etc/hosts first, then DNS.
		{name: "etc/nsswitch.conf", mode: 0o644, contents: []byte("hosts: files dns\n")},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: nonRoot},
		{name: "root/", mode: 0o700},
		{name: "tmp/", mode: 0o1777},
	}
	if s.caBundle != "" {
		switch ca, err := os.ReadFile(s.caBundle); {
		case err == nil:
			files = append(files, file{name: "etc/ssl/", mode: 0o755}, file{name: "etc/ssl/certs/", mode: 0o755},
				file{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, contents: ca})
		case !os.IsNotExist(err):
			return nil, err
		}
	}
	return layer(files, s.created)
}

func binaryLayer(s spec, bin string) (v1.Layer, error) {
	b, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	return layer([]file{{name: binaryName, mode: 0o755, contents: b}}, s.created)
}

// layer writes files as a tar in memory; the compressed form is cached so
// that the digest and both outputs compress it once.
func layer(files []file, mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.uid, ModTime: mtime, Format: tar.FormatPAX}
		if f.name[len(f.name)-1] == '/' {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.contents))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.contents); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.DefaultCompression), tarball.WithCompressedCaching)
}

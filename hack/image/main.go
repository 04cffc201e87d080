// Command image builds the in-cluster controller's OCI image without a
// container daemon: a static binary on a minimal non-root base made here,
// written as an OCI image layout and as a docker-archive tarball (for
// `docker load` / `podman load`). make image runs it:
//
//	go run . --repo ../.. --version v0.3.0 --revision $(git rev-parse HEAD)
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

const repository = "ghcr.io/liqo-auth-tui/liqo-auth-controller"

func main() {
	s := spec{created: sourceDateEpoch()}
	var ociDir, tarPath string
	flag.StringVar(&s.repo, "repo", "../..", "repository root")
	flag.StringVar(&s.arch, "arch", runtime.GOARCH, "GOARCH of the image (linux only)")
	flag.StringVar(&s.version, "version", "dev", "version stamped into the binary and the labels")
	flag.StringVar(&s.revision, "revision", "", "VCS revision stamped into the binary and the labels")
	flag.StringVar(&s.source, "source", "https://github.com/liqo-auth-tui/liqo-auth-tui", "org.opencontainers.image.source label")
	flag.StringVar(&s.caBundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates copied into the image, if the file exists (\"\": none)")
	flag.StringVar(&ociDir, "oci-dir", "bin/image/"+binaryName, "OCI image layout written (relative to --repo; \"\": none)")
	flag.StringVar(&tarPath, "tar", "bin/"+binaryName+"-image.tar", "docker-archive tarball written (relative to --repo; \"\": none)")
	flag.Parse()
	if err := run(s, ociDir, tarPath); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(s spec, ociDir, tarPath string) error {
	start := time.Now()
	var err error
	if s.workDir, err = os.MkdirTemp("", "liqo-auth-image-"); err != nil {
		return err
	}
	defer os.RemoveAll(s.workDir)
	img, err := buildImage(s)
	if err != nil {
		return err
	}
	tags, err := tags(s.version)
	if err != nil {
		return err
	}
	if ociDir != "" {
		if err := writeLayout(inRepo(s.repo, ociDir), img, tags); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "image: OCI layout %s\n", ociDir)
	}
	if tarPath != "" {
		refs := map[name.Reference]v1.Image{}
		for _, t := range tags {
			refs[t] = img
		}
		if err := os.MkdirAll(filepath.Dir(inRepo(s.repo, tarPath)), 0o755); err != nil {
			return err
		}
		if err := tarball.MultiRefWriteToFile(inRepo(s.repo, tarPath), refs); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "image: docker-archive %s (docker load -i %s)\n", tarPath, tarPath)
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	size, err := imageSize(img)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "image: %s linux/%s %s, %.1f MB compressed, built in %s\n",
		tags[0], s.arch, digest, float64(size)/1e6, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// tags names the image by its version (when it is a valid tag) and latest,
// the tag the install manifests use.
func tags(version string) ([]name.Reference, error) {
	latest, err := name.NewTag(repository + ":latest")
	if err != nil {
		return nil, err
	}
	if v, err := name.NewTag(repository+":"+version, name.StrictValidation); err == nil && version != "latest" {
		return []name.Reference{v, latest}, nil
	}
	return []name.Reference{latest}, nil
}

func inRepo(repo, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(repo, path)
}

// writeLayout replaces dir with a layout holding just img, once per tag:
// the ref.name annotation is the tag, as in oci:DIR:TAG (skopeo, podman).
func writeLayout(dir string, img v1.Image, tags []name.Reference) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	for _, t := range tags {
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": t.Identifier()})); err != nil {
			return err
		}
	}
	return nil
}

// imageSize is what a registry stores and a node pulls: config and
// compressed layers.
func imageSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, err
	}
	size := m.Config.Size
	for _, l := range m.Layers {
		size += l.Size
	}
	return size, nil
}

// sourceDateEpoch is the reproducible-builds time (SOURCE_DATE_EPOCH),
// else the Unix epoch: the same sources give the same image digest.
func sourceDateEpoch() time.Time {
	if sec, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		return time.Unix(sec, 0).UTC()
	}
	return time.Unix(0, 0).UTC()
}

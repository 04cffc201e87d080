// Command image builds the in-cluster controller's multi-architecture OCI
// image without a container daemon: for each architecture (linux/amd64 and
// linux/arm64 by default) a static binary on a minimal non-root base made
// here, gathered in an OCI image index, each image with a CycloneDX SBOM of
// its binary attached as an OCI 1.1 referrer (an artifact manifest whose
// subject is the image). make image runs it:
//
//	go run . --repo ../.. --version v0.3.0 --revision $(git rev-parse HEAD)
//
// It writes:
//   - bin/image/liqo-auth-controller, an OCI image layout: its index.json
//     names the multi-arch index once per tag (ref.name VERSION and latest)
//     and lists the two SBOM manifests (artifactType
//     application/vnd.cyclonedx+json), as oras keeps referrers in a layout.
//     Push it with the SBOMs: oras cp -r --from-oci-layout
//     bin/image/liqo-auth-controller:VERSION REGISTRY/liqo-auth-controller:VERSION
//     (the registry lists each SBOM under its image's digest, through the
//     referrers API or its tag fallback); skopeo copy --all
//     oci:bin/image/liqo-auth-controller:VERSION docker://REGISTRY/... pushes
//     the index and both images without the SBOMs. crane push takes only a
//     layout with a single entry, which this one is not.
//   - bin/liqo-auth-controller-image.tar, a docker-archive of the host's
//     architecture only, for docker load / podman load, which cannot take an
//     index; it carries no SBOM.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const repository = "ghcr.io/liqo-auth-tui/liqo-auth-controller"

// outputs says what to write; paths are relative to the repository root.
type outputs struct {
	ociDir  string // OCI image layout with the index and the SBOMs ("": none)
	tarPath string // docker-archive of one architecture's image ("": none)
	tarArch string // that architecture; "": the host's if built, else the first
}

func main() {
	s := spec{created: sourceDateEpoch()}
	var out outputs
	var archs string
	flag.StringVar(&s.repo, "repo", "../..", "repository root")
	flag.StringVar(&archs, "arch", "amd64,arm64", "comma-separated GOARCH of the images in the index (linux only)")
	flag.StringVar(&s.version, "version", "dev", "version stamped into the binary and the labels")
	flag.StringVar(&s.revision, "revision", "", "VCS revision stamped into the binary and the labels")
	flag.StringVar(&s.source, "source", "https://github.com/liqo-auth-tui/liqo-auth-tui", "org.opencontainers.image.source label")
	flag.StringVar(&s.caBundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates copied into the image, if the file exists (\"\": none)")
	flag.StringVar(&out.ociDir, "oci-dir", "bin/image/"+binaryName, "OCI image layout written (relative to --repo; \"\": none)")
	flag.StringVar(&out.tarPath, "tar", "bin/"+binaryName+"-image.tar", "docker-archive tarball written (relative to --repo; \"\": none)")
	flag.StringVar(&out.tarArch, "tar-arch", "", "GOARCH of the image in the docker-archive, one of --arch (default: the host's if built, else the first)")
	pauseTar := flag.String("pause-tar", "", "write only the lab Node's sandbox image, as a docker-archive at this path (tagged "+PauseImage+")")
	var wrap wrapOptions
	flag.StringVar(&wrap.binary, "wrap-binary", "", "write only a one-layer non-root image of this static binary (this host's architecture), tagged --wrap-ref, as a docker-archive at --wrap-tar")
	flag.StringVar(&wrap.ref, "wrap-ref", "", "the name:tag of --wrap-binary's image")
	flag.StringVar(&wrap.tarPath, "wrap-tar", "", "where --wrap-binary's docker-archive goes")
	flag.Parse()
	if wrap.binary != "" {
		err := wrap.check()
		if err == nil {
			err = writeWrappedImage(wrap, s.created)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "image:", err)
			os.Exit(1)
		}
		return
	}
	if *pauseTar != "" {
		if err := writePauseImage(s.repo, *pauseTar, s.created); err != nil {
			fmt.Fprintln(os.Stderr, "image:", err)
			os.Exit(1)
		}
		return
	}
	s.archs = strings.Split(archs, ",")
	if err := run(s, out); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

// platformImage is one architecture's image and its SBOM referrer.
type platformImage struct {
	arch string
	img  v1.Image
	sbom v1.Image
}

func run(s spec, out outputs) error {
	start := time.Now()
	var err error
	if s.workDir, err = os.MkdirTemp("", "liqo-auth-image-"); err != nil {
		return err
	}
	defer os.RemoveAll(s.workDir)
	tags, err := tags(s.version)
	if err != nil {
		return err
	}
	var images []platformImage
	for _, arch := range s.archs {
		p, err := buildPlatform(s, arch)
		if err != nil {
			return err
		}
		images = append(images, p)
	}
	index := multiArchIndex(images)
	if out.ociDir != "" {
		if err := writeLayout(inRepo(s.repo, out.ociDir), index, images, tags); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "image: OCI layout %s\n", out.ociDir)
	}
	if out.tarPath != "" {
		if out.tarArch == "" {
			out.tarArch = s.archs[0]
			if slices.Contains(s.archs, runtime.GOARCH) {
				out.tarArch = runtime.GOARCH
			}
		}
		if err := writeTarball(inRepo(s.repo, out.tarPath), images, out.tarArch, tags); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "image: docker-archive %s, linux/%s (docker load -i %s)\n", out.tarPath, out.tarArch, out.tarPath)
	}
	digest, err := index.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "image: %s index %s, built in %s\n", tags[0], digest, time.Since(start).Round(100*time.Millisecond))
	for _, p := range images {
		size, err := imageSize(p.img)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "image:   linux/%s %.1f MB compressed\n", p.arch, float64(size)/1e6)
	}
	return nil
}

// buildPlatform builds one architecture's image and its binary's SBOM.
func buildPlatform(s spec, arch string) (platformImage, error) {
	img, bin, err := buildImage(s, arch)
	if err != nil {
		return platformImage{}, err
	}
	bom, err := binarySBOM(s, bin)
	if err != nil {
		return platformImage{}, err
	}
	sbom, err := newReferrer(img, sbomMediaType, bom, s.created)
	if err != nil {
		return platformImage{}, err
	}
	return platformImage{arch: arch, img: img, sbom: sbom}, nil
}

// multiArchIndex is the index a runtime picks its platform's image from.
func multiArchIndex(images []platformImage) v1.ImageIndex {
	adds := make([]mutate.IndexAddendum, len(images))
	for i, p := range images {
		adds[i] = mutate.IndexAddendum{Add: p.img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: p.arch}}}
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
}

// writeTarball writes the arch image under each tag: a docker-archive
// holds images, not an index.
func writeTarball(path string, images []platformImage, arch string, tags []name.Reference) error {
	for _, p := range images {
		if p.arch != arch {
			continue
		}
		refs := map[name.Reference]v1.Image{}
		for _, t := range tags {
			refs[t] = p.img
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return tarball.MultiRefWriteToFile(path, refs)
	}
	return fmt.Errorf("no linux/%s image for the docker-archive: add it to --arch, or choose another --tar-arch", arch)
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

// writeLayout replaces dir with a layout holding the index once per tag
// (the ref.name annotation is the tag, as in oci:DIR:TAG for skopeo,
// podman and oras) and, untagged, each image's SBOM referrer.
func writeLayout(dir string, index v1.ImageIndex, images []platformImage, tags []name.Reference) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	for _, t := range tags {
		if err := p.AppendIndex(index, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": t.Identifier()})); err != nil {
			return err
		}
	}
	for _, img := range images {
		if err := p.AppendImage(img.sbom); err != nil {
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

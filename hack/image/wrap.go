package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// wrapOptions are --wrap-binary's: a static linux binary of this host's
// architecture, run as /<its name> by the non-root user.
type wrapOptions struct {
	binary, ref, tarPath string
}

// check says in one line what is missing.
func (o wrapOptions) check() error {
	if o.ref == "" || o.tarPath == "" {
		return fmt.Errorf("--wrap-binary needs --wrap-ref (the image's name:tag) and --wrap-tar (the docker-archive to write)")
	}
	if _, err := name.NewTag(o.ref, name.StrictValidation); err != nil {
		return fmt.Errorf("--wrap-ref %q is not an image name:tag: %w", o.ref, err)
	}
	return nil
}

// writeWrappedImage writes the binary as a one-layer image (the binary and
// /tmp, nothing else) tagged o.ref, as a docker-archive for `ctr images
// import`: what the lab's Nodes run Liqo's binaries and test probes from.
func writeWrappedImage(o wrapOptions, created time.Time) error {
	b, err := os.ReadFile(o.binary)
	if err != nil {
		return fmt.Errorf("--wrap-binary: %w", err)
	}
	entry := filepath.Base(o.binary)
	return writeOneLayerImage([]file{{name: entry, mode: 0o755, contents: b}, {name: "tmp/", mode: 0o1777}},
		v1.Config{Entrypoint: []string{"/" + entry}, User: fmt.Sprintf("%d:%d", nonRoot, nonRoot), WorkingDir: "/tmp"},
		"liqo-auth-tui hack/image --wrap-binary "+entry, o.ref, o.tarPath, created)
}

// writeOneLayerImage writes files as the one layer of a linux image of this
// host's architecture, with cfg, tagged ref, as a docker-archive at path.
func writeOneLayerImage(files []file, cfg v1.Config, createdBy, ref, path string, created time.Time) error {
	l, err := layer(files, created)
	if err != nil {
		return err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	if img, err = mutate.Append(img, mutate.Addendum{Layer: l, MediaType: types.OCILayer,
		History: v1.History{CreatedBy: createdBy, Created: v1.Time{Time: created}}}); err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created, cf.Config = "linux", runtime.GOARCH, v1.Time{Time: created}, cfg
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return tarball.WriteToFile(path, tag, img)
}

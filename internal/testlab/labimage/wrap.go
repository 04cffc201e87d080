package labimage

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// LabRef is the image name:tag under which the Nodes know a binary wrapped
// here; nothing pulls it (the Pods ask for PullNever).
func LabRef(name, tag string) string { return "localhost/liqo-auth-lab/" + name + ":" + tag }

// onceBy runs each key's build once per process and keeps its result.
type onceBy struct {
	mu   sync.Mutex
	done map[string]*result
}

type result struct {
	once sync.Once
	path string
	err  error
}

func (o *onceBy) do(key string, build func() (string, error)) (string, error) {
	o.mu.Lock()
	if o.done == nil {
		o.done = map[string]*result{}
	}
	r := o.done[key]
	if r == nil {
		r = &result{}
		o.done[key] = r
	}
	o.mu.Unlock()
	r.once.Do(func() { r.path, r.err = build() })
	return r.path, r.err
}

var (
	wrapped  onceBy // docker-archives, by ref
	commands onceBy // binaries of internal/testlab/cmd by name, and hack/image's
	scratch  struct {
		once sync.Once
		dir  string
		err  error
	}
)

// scratchDir holds what this process builds; Remove deletes it.
func scratchDir() (string, error) {
	scratch.once.Do(func() { scratch.dir, scratch.err = os.MkdirTemp("", "liqo-auth-labimage-") })
	return scratch.dir, scratch.err
}

// Wrap returns a docker-archive of the static binary bin as a one-layer
// non-root image tagged ref (hack/image --wrap-binary), built once per
// process and ref: a second caller with another binary for the same ref
// gets the first one's.
func Wrap(ctx context.Context, bin, ref string) (string, error) {
	return wrapped.do(ref, func() (string, error) {
		_, dir, tool, err := workspace(ctx)
		if err != nil {
			return "", err
		}
		archive := filepath.Join(dir, strings.NewReplacer("/", "_", ":", "_").Replace(ref)+".tar")
		return archive, runTool(ctx, tool, "wrapping "+bin+" into an image (hack/image --wrap-binary)",
			"--wrap-binary="+bin, "--wrap-ref="+ref, "--wrap-tar="+archive)
	})
}

// LoadWrapped wraps bin (once) and loads the image into each Node.
func LoadWrapped(ctx context.Context, bin, ref string, nodes ...*lab.Node) error {
	archive, err := Wrap(ctx, bin, ref)
	if err != nil {
		return err
	}
	return load(ctx, archive, nodes)
}

// LabCommand builds internal/testlab/cmd/<name> as a static linux binary,
// once per process, with the flags hack/image builds the controller with
// (the packages they share then come from the Go build cache).
func LabCommand(ctx context.Context, name string) (string, error) {
	return commands.do(name, func() (string, error) {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		dir, err := scratchDir()
		if err != nil {
			return "", err
		}
		bin := filepath.Join(dir, name)
		static := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + runtime.GOARCH, "GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS="}
		return bin, goBuild(ctx, root, static, "go build ./internal/testlab/cmd/"+name,
			"-trimpath", "-ldflags", "-s -w -buildid=", "-o", bin, "./internal/testlab/cmd/"+name)
	})
}

// Package liqoproc holds what the harnesses that run real Liqo binaries
// (realliqov1, realliqo0x) share: finding a cached build folder, applying the
// build's CRDs, and running its binaries with their logs in t.Log. It never
// links Liqo: it only reads files and execs.
package liqoproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CacheEnv overrides the root of the cache folder of every build.
const CacheEnv = "LIQO_AUTH_CACHE"

// Build is one build folder that a hack/install-*.sh script fills.
type Build struct {
	// Label names the build in errors, e.g. "Liqo v1.2.0".
	Label string
	// NotBuilt starts the error for a missing build, e.g.
	// "liqo-peer (Liqo v1.2.0) is not built".
	NotBuilt string
	// Env overrides the folder; Folder is its name under the cache root.
	Env, Folder string
	// Files must all exist in the folder (binaries, sub-folders, marker).
	Files []string
	// Hint is the command that builds the folder, e.g. "make liqo-peer".
	Hint string
	// FieldManager owns what ApplyCRDs applies.
	FieldManager string
}

// Dir returns the build folder, or an error that says how to build it.
func (b Build) Dir() (string, error) {
	dir := os.Getenv(b.Env)
	if dir == "" {
		root := os.Getenv(CacheEnv)
		if root == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				return "", fmt.Errorf("locating %s: %w", b.Label, err)
			}
			root = filepath.Join(cache, "liqo-auth-tui")
		}
		dir = filepath.Join(root, b.Folder)
	}
	for _, name := range b.Files {
		if _, err := os.Stat(filepath.Join(dir, name)); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s in %s (%s missing): build it with `%s`", b.NotBuilt, dir, name, b.Hint)
		} else if err != nil {
			return "", fmt.Errorf("%s: %w", b.Label, err)
		}
	}
	return dir, nil
}

// Package liqolegacy runs REAL Liqo 0.x components (auth-service,
// liqo-controller-manager and crd-replicator of Liqo v0.10.1, built by
// hack/install-liqo-legacy.sh from hack/liqo-legacy) against lab clusters,
// out of cluster, so that tests check the 0.x token authentication against
// Liqo itself. It never links Liqo: it installs Liqo 0.x's own CRDs and
// ClusterRole rules from the build's cache folder and execs the binaries.
package liqolegacy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LiqoVersion is the Liqo release the binaries are built from;
// hack/install-liqo-legacy.sh builds exactly it into the same cache folder.
const LiqoVersion = "v0.10.1"

// DirEnv overrides the folder holding the binaries, crds/ and files/.
const DirEnv = "LIQO_AUTH_LIQO_LEGACY"

// InstallHint is the command that builds the binaries when they are missing.
const InstallHint = "make liqo-legacy"

// The binaries the folder holds.
const (
	authServiceBin       = "auth-service"
	controllerManagerBin = "liqo-controller-manager"
	crdReplicatorBin     = "crd-replicator"
)

// Dir returns the folder with Liqo 0.x's binaries, its CRDs (crds/) and the
// rule files of its remote-peering ClusterRoles (files/), or an error that
// says how to build them.
func Dir() (string, error) {
	dir := os.Getenv(DirEnv)
	if dir == "" {
		root := os.Getenv("LIQO_AUTH_CACHE")
		if root == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				return "", fmt.Errorf("locating Liqo %s: %w", LiqoVersion, err)
			}
			root = filepath.Join(cache, "liqo-auth-tui")
		}
		dir = filepath.Join(root, "liqo-legacy-"+LiqoVersion)
	}
	for _, name := range []string{authServiceBin, controllerManagerBin, crdReplicatorBin, "crds", "files", ".complete"} {
		if _, err := os.Stat(filepath.Join(dir, name)); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("the Liqo %s binaries are not built in %s (%s missing): build them with `%s`", LiqoVersion, dir, name, InstallHint)
		} else if err != nil {
			return "", fmt.Errorf("the Liqo %s binaries: %w", LiqoVersion, err)
		}
	}
	return dir, nil
}

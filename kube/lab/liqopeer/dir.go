// Package liqopeer runs REAL Liqo v1.2.0 authentication reconcilers (the
// liqo-peer binary that hack/install-liqo-peer.sh builds from hack/liqo-peer)
// against lab clusters, so that tests check interoperability with Liqo
// itself. It never links Liqo: it installs Liqo's own CRDs and ClusterRoles
// from the build's cache folder and execs the binary.
package liqopeer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LiqoVersion is the Liqo release liqo-peer is built from;
// hack/install-liqo-peer.sh builds exactly it into the same cache folder.
const LiqoVersion = "v1.2.0"

// DirEnv overrides the folder holding liqo-peer, crds/ and clusterroles/.
const DirEnv = "LIQO_AUTH_LIQO_PEER"

// InstallHint is the command that builds liqo-peer when it is missing.
const InstallHint = "make liqo-peer"

// Dir returns the folder with the liqo-peer and crd-replicator binaries,
// Liqo's CRDs (crds/) and ClusterRoles (clusterroles/), or an error that
// says how to build them.
func Dir() (string, error) {
	dir := os.Getenv(DirEnv)
	if dir == "" {
		root := os.Getenv("LIQO_AUTH_CACHE")
		if root == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				return "", fmt.Errorf("locating liqo-peer: %w", err)
			}
			root = filepath.Join(cache, "liqo-auth-tui")
		}
		dir = filepath.Join(root, "liqo-peer-"+LiqoVersion)
	}
	for _, name := range []string{"liqo-peer", "crd-replicator", "crds", "clusterroles", ".complete"} {
		if _, err := os.Stat(filepath.Join(dir, name)); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("liqo-peer (Liqo %s) is not built in %s (%s missing): build it with `%s`", LiqoVersion, dir, name, InstallHint)
		} else if err != nil {
			return "", fmt.Errorf("liqo-peer: %w", err)
		}
	}
	return dir, nil
}

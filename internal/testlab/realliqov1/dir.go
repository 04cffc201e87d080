// Package realliqov1 runs REAL Liqo v1 authentication reconcilers (the
// liqo-peer binary that hack/install-liqo-peer.sh builds from hack/liqo-peer,
// one per release in Releases) against lab clusters, so that tests check
// interoperability with Liqo itself. It never links Liqo: it installs
// Liqo's own CRDs and ClusterRoles from the build's cache folder and execs
// the binary.
package realliqov1

import (
	"fmt"
	"slices"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// LiqoVersion is the release a caller gets when it names none (""): the
// baseline of the protocol spec.
const LiqoVersion = "v1.2.0"

// Releases are the Liqo v1 releases liqo-peer is built from, newest first;
// hack/install-liqo-peer.sh builds exactly them, each into a cache folder of
// its own. v1.0.3 and v1.1.2 are the last patch releases of their minors
// that the module proxy serves.
var Releases = []string{LiqoVersion, "v1.1.2", "v1.0.3"}

// ProviderRenews tells a release whose provider renews certificates by
// itself (from v1.2.0: its Tenant and remote ResourceSlice controllers
// re-sign at 2/3 of the life, skipping their certificate caches) from the
// older ones, where the consumer asks with a Renew and a cache is only
// ever answered from (protocol spec §10.2).
func ProviderRenews(release string) bool {
	return !strings.HasPrefix(release, "v1.0.") && !strings.HasPrefix(release, "v1.1.")
}

// DirEnv overrides the folder holding the default release's liqo-peer,
// crds/ and clusterroles/ (the other releases are looked up in the cache).
const DirEnv = "LIQO_AUTH_LIQO_PEER"

// InstallHint is the command that builds liqo-peer when it is missing.
const InstallHint = "make liqo-peer"

// releaseOf returns the release meant by name ("" = LiqoVersion), or an
// error naming the releases there are.
func releaseOf(name string) (string, error) {
	if name == "" {
		return LiqoVersion, nil
	}
	if !slices.Contains(Releases, name) {
		return "", fmt.Errorf("no liqo-peer build of Liqo %q: the releases are %s", name, strings.Join(Releases, ", "))
	}
	return name, nil
}

// buildOf is the cache folder hack/install-liqo-peer.sh fills for a release.
func buildOf(release string) liqoproc.Build {
	b := liqoproc.Build{
		Label:        "Liqo " + release,
		NotBuilt:     "liqo-peer (Liqo " + release + ") is not built",
		Folder:       "liqo-peer-" + release,
		Files:        []string{"liqo-peer", "crd-replicator", "crds", "clusterroles", ".complete"},
		Hint:         InstallHint,
		FieldManager: "liqo-peer-harness",
	}
	if release == LiqoVersion {
		b.Env = DirEnv
	}
	return b
}

// Dir returns the folder of release ("" = LiqoVersion) with the liqo-peer
// and crd-replicator binaries, Liqo's CRDs (crds/) and ClusterRoles
// (clusterroles/), or an error that says how to build them.
func Dir(release string) (string, error) {
	b, err := find(release)
	return b.dir, err
}

// built is the build of one release, found.
type built struct {
	version string
	dir     string
	liqoproc.Build
}

// find locates the build of release ("" = LiqoVersion).
func find(release string) (built, error) {
	version, err := releaseOf(release)
	if err != nil {
		return built{}, err
	}
	b := built{version: version, Build: buildOf(version)}
	b.dir, err = b.Build.Dir()
	return b, err
}

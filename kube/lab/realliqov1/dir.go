// Package realliqov1 runs REAL Liqo v1.2.0 authentication reconcilers (the
// liqo-peer binary that hack/install-liqo-peer.sh builds from hack/liqo-peer)
// against lab clusters, so that tests check interoperability with Liqo
// itself. It never links Liqo: it installs Liqo's own CRDs and ClusterRoles
// from the build's cache folder and execs the binary.
package realliqov1

import "github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/liqoproc"

// LiqoVersion is the Liqo release liqo-peer is built from;
// hack/install-liqo-peer.sh builds exactly it into the same cache folder.
const LiqoVersion = "v1.2.0"

// DirEnv overrides the folder holding liqo-peer, crds/ and clusterroles/.
const DirEnv = "LIQO_AUTH_LIQO_PEER"

// InstallHint is the command that builds liqo-peer when it is missing.
const InstallHint = "make liqo-peer"

// build is the cache folder hack/install-liqo-peer.sh fills.
var build = liqoproc.Build{
	Label:        "Liqo " + LiqoVersion,
	NotBuilt:     "liqo-peer (Liqo " + LiqoVersion + ") is not built",
	Env:          DirEnv,
	Folder:       "liqo-peer-" + LiqoVersion,
	Files:        []string{"liqo-peer", "crd-replicator", "crds", "clusterroles", ".complete"},
	Hint:         InstallHint,
	FieldManager: "liqo-peer-harness",
}

// Dir returns the folder with the liqo-peer and crd-replicator binaries,
// Liqo's CRDs (crds/) and ClusterRoles (clusterroles/), or an error that
// says how to build them.
func Dir() (string, error) { return build.Dir() }

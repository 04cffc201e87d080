// Package realliqo0x runs REAL Liqo 0.x components (auth-service,
// liqo-controller-manager and crd-replicator of Liqo v0.10.1, built by
// hack/install-liqo0x.sh from hack/liqo0x) against lab clusters,
// out of cluster, so that tests check the 0.x token authentication against
// Liqo itself. It never links Liqo: it installs Liqo 0.x's own CRDs and
// ClusterRole rules from the build's cache folder and execs the binaries.
package realliqo0x

import "github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"

// LiqoVersion is the Liqo release the binaries are built from;
// hack/install-liqo0x.sh builds exactly it into the same cache folder.
const LiqoVersion = "v0.10.1"

// DirEnv overrides the folder holding the binaries, crds/ and files/.
const DirEnv = "LIQO_AUTH_LIQO0X"

// InstallHint is the command that builds the binaries when they are missing.
const InstallHint = "make liqo0x"

// The binaries the folder holds.
const (
	authServiceBin       = "auth-service"
	controllerManagerBin = "liqo-controller-manager"
	crdReplicatorBin     = "crd-replicator"
)

// StartTimeout bounds the wait for a Liqo process to be ready.
const StartTimeout = liqoproc.StartTimeout

// StopTimeout bounds a graceful stop before a Liqo process is killed.
const StopTimeout = liqoproc.StopTimeout

// build is the cache folder hack/install-liqo0x.sh fills.
var build = liqoproc.Build{
	Label:        "Liqo " + LiqoVersion,
	NotBuilt:     "the Liqo " + LiqoVersion + " binaries are not built",
	Env:          DirEnv,
	Folder:       "liqo0x-" + LiqoVersion,
	Files:        []string{authServiceBin, controllerManagerBin, crdReplicatorBin, "crds", "files", ".complete"},
	Hint:         InstallHint,
	FieldManager: "liqo0x-harness",
}

// Dir returns the folder with Liqo 0.x's binaries, its CRDs (crds/) and the
// rule files of its remote-peering ClusterRoles (files/), or an error that
// says how to build them.
func Dir() (string, error) { return build.Dir() }

package realliqov1

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// Options say what one liqo-peer process runs.
type Options struct {
	// Release is the Liqo release to run, one of Releases; "" = LiqoVersion.
	// Install the same release's CRDs first (InstallRelease).
	Release string
	// ClusterID is Liqo's --cluster-id: the ID in the cluster-ID ConfigMap.
	ClusterID string
	// Namespace is Liqo's --liqo-namespace; "" = "liqo".
	Namespace string
	// Provider and Consumer turn on each side's reconcilers (at least one).
	Provider, Consumer bool
	// APIServerOverride is Liqo's --api-server-address-override: lab
	// clusters have no Nodes to take the address from.
	APIServerOverride string
	// Args are more liqo-controller-manager flags.
	Args []string
}

// StartTimeout bounds the wait for liqo-peer's caches to sync.
const StartTimeout = liqoproc.StartTimeout

// StopTimeout bounds a graceful stop before liqo-peer is killed.
const StopTimeout = liqoproc.StopTimeout

// readyLine is what liqo-peer prints on stdout once its caches synced.
const readyLine = "ready"

// Start runs liqo-peer against the cluster of kubeconfig until the test
// ends, and returns once its caches synced. Its logs go to t.Log. A peer
// that cannot start fails the test with its exit status.
func Start(t testing.TB, kubeconfig string, o Options) {
	t.Helper()
	b, err := find(o.Release)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Provider && !o.Consumer {
		t.Fatal("realliqov1.Start: set Provider, Consumer or both")
	}
	ns := o.Namespace
	if ns == "" {
		ns = "liqo"
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--cluster-id=" + o.ClusterID,
		"--liqo-namespace=" + ns,
		"--provider=" + strconv.FormatBool(o.Provider),
		"--consumer=" + strconv.FormatBool(o.Consumer),
	}
	if o.APIServerOverride != "" {
		args = append(args, "--api-server-address-override="+o.APIServerOverride)
	}
	args = append(args, o.Args...)
	p := liqoproc.Start(t, "liqo-peer["+o.ClusterID+"]", filepath.Join(b.dir, "liqo-peer"), args, nil,
		func(line string) bool { return line == readyLine })
	p.WaitReady()
	t.Logf("liqo-peer (Liqo %s) ready on cluster %s (provider=%t, consumer=%t)", b.version, o.ClusterID, o.Provider, o.Consumer)
}

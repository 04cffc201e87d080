package realliqo0x

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// Liqo v0.10.1's crd-replicator (cmd/crd-replicator/main.go) builds its
// controller-runtime manager without a metrics address, so it binds
// controller-runtime's default :8080 and has no flag to move it: only one
// runs per machine. StartCRDReplicator serialises them across test binaries
// with an exclusive lock on replicatorLock, held until the test ends.
// The file keeps its first name so that checkouts from before the 0.x
// renames still share the lock with newer ones.
var replicatorLock = filepath.Join(os.TempDir(), "liqo-auth-tui-liqo-legacy-crd-replicator.lock")

// ReplicatorLockTimeout bounds the wait for another test's crd-replicator.
const ReplicatorLockTimeout = 10 * time.Minute

// ReplicatorOptions say what one crd-replicator process runs as.
type ReplicatorOptions struct {
	// ClusterID and ClusterName are the ones given to Install.
	ClusterID, ClusterName string
	// Args are more crd-replicator flags.
	Args []string
}

// StartCRDReplicator runs Liqo's own crd-replicator against the cluster of
// kubeconfig (Install it first) with the chart's flags, until the test ends,
// and returns once its controller runs (caches synced). Without any
// replicator an unpeer stays Disconnecting. Its logs go to t.Log.
func StartCRDReplicator(t testing.TB, kubeconfig string, o ReplicatorOptions) {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if o.ClusterID == "" || o.ClusterName == "" {
		t.Fatal("realliqo0x.StartCRDReplicator: ClusterID and ClusterName are required")
	}
	lockReplicatorPort(t)
	args := append([]string{"--cluster-id=" + o.ClusterID, "--cluster-name=" + o.ClusterName}, o.Args...)
	p := liqoproc.Start(t, "crd-replicator["+o.ClusterName+"]", filepath.Join(dir, crdReplicatorBin), args,
		[]string{"KUBECONFIG=" + kubeconfig}, replicatorReady)
	p.WaitReady()
	t.Logf("crd-replicator (Liqo %s) ready on cluster %s", LiqoVersion, o.ClusterID)
}

// lockReplicatorPort takes the machine-wide crd-replicator lock until the
// test ends (cleanups run last-in first-out: after the process stopped).
func lockReplicatorPort(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile(replicatorLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	locked := make(chan error, 1)
	go func() { locked <- syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }()
	select {
	case err := <-locked:
		if err != nil {
			f.Close()
			t.Fatalf("locking %s: %v", replicatorLock, err)
		}
	case <-time.After(ReplicatorLockTimeout):
		t.Fatalf("another Liqo %s crd-replicator held :8080 (lock %s) for %s", LiqoVersion, replicatorLock, ReplicatorLockTimeout)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}

// replicatorReady matches controller-runtime's "Starting workers" line of
// its only controller.
func replicatorReady(line string) bool {
	return strings.Contains(line, `"Starting workers"`) && strings.Contains(line, `controller="crdReplicator-operator"`)
}

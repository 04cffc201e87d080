package realliqov1

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// What Liqo's crd-replicator (cmd/crd-replicator, internal/crdReplicator;
// the same in every release of Releases but where said) needs, read from
// its source:
//   - the Liqo CRDs of every group (its REST mapper is Liqo's; Install puts them);
//   - its cluster ID (--cluster-id): the originID it stamps on the copies;
//   - the consumer's control-plane kubeconfig Secret, found cluster-wide by
//     labels liqo.io/remote-cluster-id and liqo.io/identity-type=ControlPlane,
//     with annotation liqo.io/remote-tenant-namespace (Liqo's Identity
//     controller writes it so): it reflects the local objects labelled
//     liqo.io/replication=true and liqo.io/remoteID=<provider> of the Secret's
//     namespace (NamespaceMaps, ResourceSlices, Renews) into the namespace
//     the annotation names on the provider, spec out and status back.
//
// ForeignClusters are optional: from v1.1 it reads them only to mark a
// provider permanently unreachable (annotation), and assumes a provider
// reachable when there is none; v1.0.x does not read them. Its kubeconfig comes from KUBECONFIG (it has no
// --kubeconfig flag); its metrics port defaults to a fixed ":8082", so
// StartReplicator turns it off.

// replicatorController is the name of its Secret controller, whose workers
// start once its Secret cache synced.
const replicatorController = `controller="secret_crdreplicator"`

// ReplicatorOptions say what one crd-replicator process runs as.
type ReplicatorOptions struct {
	// Release is the Liqo release to run, one of Releases; "" = LiqoVersion.
	Release string
	// ClusterID is the local cluster's ID (--cluster-id).
	ClusterID string
	// Args are more crd-replicator flags.
	Args []string
}

// StartReplicator runs Liqo's own crd-replicator against the cluster of
// kubeconfig until the test ends, and returns once its Secret controller
// runs (its caches synced). Its logs go to t.Log.
func StartReplicator(t testing.TB, kubeconfig string, o ReplicatorOptions) {
	t.Helper()
	b, err := find(o.Release)
	if err != nil {
		t.Fatal(err)
	}
	if o.ClusterID == "" {
		t.Fatal("realliqov1.StartReplicator: ClusterID is required")
	}
	args := append([]string{"--cluster-id=" + o.ClusterID, "--metrics-address=0"}, o.Args...)
	p := liqoproc.Start(t, "crd-replicator["+o.ClusterID+"]", filepath.Join(b.dir, "crd-replicator"), args,
		[]string{"KUBECONFIG=" + kubeconfig}, replicatorReady)
	p.WaitReady()
	t.Logf("crd-replicator (Liqo %s) ready on cluster %s", b.version, o.ClusterID)
}

// replicatorReady matches controller-runtime's "Starting workers" line of
// the Secret controller (klog text format).
func replicatorReady(line string) bool {
	return strings.Contains(line, `"Starting workers"`) && strings.Contains(line, replicatorController)
}

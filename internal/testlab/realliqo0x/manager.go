package realliqo0x

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// ManagerOptions say what one liqo-controller-manager process runs as.
type ManagerOptions struct {
	// ClusterID and ClusterName are the ones given to Install.
	ClusterID, ClusterName string
	// Args are more liqo-controller-manager flags (later flags win).
	Args []string
}

// chartManagerArgs are the flags v0.10.1's chart passes to
// liqo-controller-manager with its default values
// (templates/liqo-controller-manager-deployment.yaml, values.yaml; the image
// tag is the release's), less the cluster identity and the webhook port.
var chartManagerArgs = []string{
	"--liqo-namespace=" + Namespace,
	"--enable-incoming-peering=true",
	"--resource-sharing-percentage=30",
	"--pod-reflection-workers=10",
	"--service-reflection-workers=3",
	"--endpointslice-reflection-workers=10",
	"--ingress-reflection-workers=3",
	"--configmap-reflection-workers=3",
	"--secret-reflection-workers=3",
	"--serviceaccount-reflection-workers=3",
	"--persistentvolumeclaim-reflection-workers=3",
	"--event-reflection-workers=3",
	"--service-reflection-type=DenyList",
	"--ingress-reflection-type=DenyList",
	"--configmap-reflection-type=DenyList",
	"--secret-reflection-type=DenyList",
	"--event-reflection-type=DenyList",
	"--annotations-not-reflected=" + strings.Join([]string{
		"cloud.google.com/neg", "cloud.google.com/neg-status",
		"kubernetes.digitalocean.com/load-balancer-id",
		"ingress.kubernetes.io/backends", "ingress.kubernetes.io/forwarding-rule",
		"ingress.kubernetes.io/target-proxy", "ingress.kubernetes.io/url-map",
		"metallb.universe.tf/address-pool", "metallb.universe.tf/ip-allocated-from-pool",
		"metallb.universe.tf/loadBalancerIPs",
	}, ","),
	"--kubelet-image=ghcr.io/liqotech/virtual-kubelet:" + LiqoVersion,
	"--kubelet-ipam-server=liqo-network-manager." + Namespace + ":6000",
	"--auto-join-discovered-clusters=true",
	"--enable-storage=true",
	"--virtual-storage-class-name=liqo",
	"--real-storage-class-name=",
	"--storage-namespace=liqo-storage",
	"--kubelet-extra-args=--enable-apiserver-support=true",
	"--offer-update-threshold-percentage=5",
}

// StartControllerManager runs Liqo's own liqo-controller-manager against the
// cluster of kubeconfig (Install it first) with the chart's default flags,
// out of cluster: its webhook on a free port with a self-signed pair (no
// webhook configuration points at it, as the harness applies what the
// webhooks would default), metrics and health probes off so that several run
// side by side. It returns once the ForeignCluster controller's workers run
// (its caches synced) and stops when the test ends. Its logs go to t.Log.
func StartControllerManager(t testing.TB, kubeconfig string, o ManagerOptions) {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if o.ClusterID == "" || o.ClusterName == "" {
		t.Fatal("realliqo0x.StartControllerManager: ClusterID and ClusterName are required")
	}
	tmpDir, err := writeWebhookPair(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, webhookPort, err := net.SplitHostPort(FreeAddress(t))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{
		"--cluster-id=" + o.ClusterID,
		"--cluster-name=" + o.ClusterName,
	}, chartManagerArgs...)
	args = append(args,
		"--webhook-port="+webhookPort,
		"--metrics-address=0",
		"--health-probe-address=0",
	)
	args = append(args, o.Args...)
	name := "liqo-controller-manager[" + o.ClusterName + "]"
	p := liqoproc.Start(t, name, filepath.Join(dir, controllerManagerBin), args,
		[]string{"KUBECONFIG=" + kubeconfig, "TMPDIR=" + tmpDir}, managerReady)
	p.WaitReady()
	t.Logf("liqo-controller-manager (Liqo %s) ready on cluster %s (webhook port %s)", LiqoVersion, o.ClusterID, webhookPort)
}

// managerReady matches controller-runtime's "Starting workers" line of the
// ForeignCluster controller (klog text format).
func managerReady(line string) bool {
	return strings.Contains(line, `"Starting workers"`) && strings.Contains(line, `controller="foreigncluster"`)
}

package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PauseImage is the sandbox image's name: hack/image builds it
// (--pause-tar) and each Node imports it; nothing can be pulled here.
const PauseImage = "localhost/liqo-auth-lab/pause:1"

// containerdConfig runs containerd with everything under dir (its socket
// too), the lab's runc wrapper as the runc runtime and the CNI plugins of
// Debian's containernetworking-plugins.
func containerdConfig(dir, bins string) string {
	q := func(s string) string { return "'" + s + "'" }
	return strings.Join([]string{
		"version = 3",
		"root = " + q(filepath.Join(dir, "containerd", "root")),
		"state = " + q(filepath.Join(dir, "containerd", "state")),
		"imports = []",
		"[grpc]",
		"  address = " + q(containerdSocket(dir)),
		"[ttrpc]",
		"  address = " + q(containerdSocket(dir)+".ttrpc"),
		"[plugins.'io.containerd.cri.v1.images']",
		"  snapshotter = 'overlayfs'",
		"  [plugins.'io.containerd.cri.v1.images'.pinned_images]",
		"    sandbox = " + q(PauseImage),
		"[plugins.'io.containerd.cri.v1.runtime']",
		"  cdi_spec_dirs = []",
		// Pod network namespaces under state: a Node's cleanup finds them.
		"  netns_mounts_under_state_dir = true",
		"  [plugins.'io.containerd.cri.v1.runtime'.containerd]",
		"    default_runtime_name = 'runc'",
		"    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]",
		"      runtime_type = 'io.containerd.runc.v2'",
		"      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]",
		"        BinaryName = " + q(filepath.Join(bins, "lab-runc")),
		"        SystemdCgroup = false",
		"  [plugins.'io.containerd.cri.v1.runtime'.cni]",
		"    bin_dirs = ['/usr/lib/cni']",
		"    conf_dir = " + q(filepath.Join(dir, "cni")),
		"[plugins.'io.containerd.grpc.v1.cri']",
		"  stream_server_address = '127.0.0.1'",
		"",
	}, "\n")
}

func containerdSocket(dir string) string { return filepath.Join(dir, "containerd.sock") }

// cniConfig gives the Pods a bridge in the Node's namespace, with the
// Node as their gateway and their traffic leaving as the Node's address.
func cniConfig(n *nodeNet) string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "liqo-lab",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": %q, "gateway": %q}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`, n.PodCIDR, n.PodGateway)
}

// kubeletConfig is what this kind of machine needs of a kubelet (see
// ../shared/real-clusters-beyond-the-lab.md): cgroup v1 tolerated, cgroupfs,
// no QoS cgroups nor allocatable enforcement, swap tolerated; its files
// under dir; the API server reaches it on the Node's address and
// authenticates with the lab CA's client certificate.
func kubeletConfig(dir string, n *nodeNet, clientCAFile string) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
containerRuntimeEndpoint: unix://%s
address: %s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
podLogsDir: %s
resolvConf: %s
podCIDR: %s
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: %s
authorization:
  mode: Webhook
evictionHard:
  memory.available: "1Mi"
  nodefs.available: "1%%"
  imagefs.available: "1%%"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
fileCheckFrequency: 1s
nodeStatusUpdateFrequency: 5s
`, containerdSocket(dir), n.NodeIP, filepath.Join(dir, "pod-logs"), filepath.Join(dir, "resolv.conf"), n.PodCIDR, clientCAFile)
}

// kubeProxyConfig runs kube-proxy in iptables mode in the Node's namespace:
// the `kubernetes` Service (what Pods' in-cluster config dials) and the
// lab's Services reach their endpoints. conntrack's limits are the host's
// to set, not a lab's.
func kubeProxyConfig(kubeconfig, node string, n *nodeNet) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection:
  kubeconfig: %s
hostnameOverride: %s
bindAddress: %s
clusterCIDR: %s
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`, kubeconfig, node, n.NodeIP, podCIDRPrefix+"0.0/16")
}

func writeFiles(files map[string]string) error {
	for path, body := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			return err
		}
	}
	return nil
}

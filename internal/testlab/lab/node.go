package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ContainerdVersion is the Node's container runtime;
// hack/install-node-binaries.sh builds exactly it (and the kubelet,
// kube-scheduler and kube-proxy of KubeVersion) into NodeBinaryDir.
const ContainerdVersion = "v2.4.2"

// NodeBinariesEnv overrides where the Node's binaries are looked up.
const NodeBinariesEnv = "LIQO_AUTH_NODE_BINARIES"

// NodeInstallHint builds the Node's binaries when they are missing.
const NodeInstallHint = "make node-binaries"

// nodeReadyTimeout bounds the wait for a new Node to be Ready.
const nodeReadyTimeout = 3 * time.Minute

// NodeBinaryDir returns the folder with the Node's binaries, or an error
// that says how to build them.
func NodeBinaryDir() (string, error) {
	dir := os.Getenv(NodeBinariesEnv)
	if dir == "" {
		root, err := cacheRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, fmt.Sprintf("node-%s-containerd-%s", KubeVersion, ContainerdVersion))
	}
	if err := present(dir, "Node binary", NodeInstallHint,
		"kubelet", "kube-scheduler", "kube-proxy", "containerd", "containerd-shim-runc-v2", "ctr", "lab-runc", "pause.tar"); err != nil {
		return "", err
	}
	return dir, nil
}

// Node is a cluster's one Node, on which Pods run: containerd, the kubelet
// and kube-proxy in a network namespace of their own (NetNS, address IP),
// kube-scheduler beside the control plane. The API server is reachable
// from the Node and its Pods on IP:6443, as on a control-plane Node.
type Node struct {
	Name string
	// IP is the Node's InternalIP; HostIP the host's end of its link.
	IP, HostIP string
	// NetNS is the Node's network namespace (under /run/netns).
	NetNS string

	net       *nodeNet
	dir, bins string
	procs     []*nodeProcess
	listeners []net.Listener
}

// nodeProcess is one of a Node's daemons, with its log.
type nodeProcess struct {
	name, log string
	cmd       *exec.Cmd
	done      chan error
}

// APIServerPort is where a Node and its Pods reach their API server, on the
// Node's address (Liqo advertises a control-plane Node's address on it).
const APIServerPort = 6443

// startNode starts the Node of c, whose API server was started for net
// (configureNodeAPIServer). apiPort is the API server's secure port.
func (c *Cluster) startNode(ctx context.Context, n *nodeNet, dir, bins string, apiPort int) (err error) {
	node := &Node{Name: c.Name + "-node", IP: n.NodeIP, HostIP: n.HostIP, NetNS: n.NetNS, net: n,
		dir: filepath.Join(dir, c.Name+"-node"), bins: bins}
	c.Node = node
	target := net.JoinHostPort("127.0.0.1", strconv.Itoa(apiPort))
	for _, port := range []int{APIServerPort, apiPort} {
		l, err := n.listen(net.JoinHostPort(n.NodeIP, strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("serving the API server on the Node's address: %w", err)
		}
		node.listeners = append(node.listeners, l)
		go forward(l, target)
	}
	kubelet, err := c.nodeKubeconfig(node, "system:node:"+node.Name, "system:nodes")
	if err != nil {
		return err
	}
	proxy, err := c.nodeKubeconfig(node, "system:kube-proxy")
	if err != nil {
		return err
	}
	d := node.dir
	if err := writeFiles(map[string]string{
		filepath.Join(d, "containerd.toml"):             containerdConfig(d, bins),
		filepath.Join(d, "cni", "10-liqo-lab.conflist"): cniConfig(n),
		filepath.Join(d, "kubelet.yaml"):                kubeletConfig(d, n, c.ca.certPath()),
		filepath.Join(d, "kube-proxy.yaml"):             kubeProxyConfig(proxy, node.Name, n),
		// No DNS in the lab: a Pod resolves only what it is given.
		filepath.Join(d, "resolv.conf"): "# the lab serves no DNS\n",
	}); err != nil {
		return err
	}
	if err := node.startContainerd(ctx, filepath.Join(d, "containerd.toml")); err != nil {
		return err
	}
	if err := node.LoadImage(ctx, filepath.Join(bins, "pause.tar")); err != nil {
		return err
	}
	if err := node.start("kubelet", n.command(filepath.Join(bins, "kubelet"), "--config", filepath.Join(d, "kubelet.yaml"),
		"--kubeconfig", kubelet, "--root-dir", filepath.Join(d, "kubelet"), "--hostname-override", node.Name,
		"--node-ip", n.NodeIP, "--cert-dir", filepath.Join(d, "kubelet-pki"))); err != nil {
		return err
	}
	if err := node.start("kube-proxy", n.command(filepath.Join(bins, "kube-proxy"), "--config", filepath.Join(d, "kube-proxy.yaml"))); err != nil {
		return err
	}
	if err := node.start("kube-scheduler", exec.Command(filepath.Join(bins, "kube-scheduler"), "--kubeconfig", c.KubeconfigPath,
		"--leader-elect=false", "--secure-port=0")); err != nil {
		return err
	}
	if err := node.waitReady(ctx, c.Config); err != nil {
		return err
	}
	return node.labelControlPlane(ctx, c.Config)
}

// ControlPlaneLabel marks a lab Node as its cluster's control plane, as
// kubeadm labels the Node it runs the API server on (the kubelet may not
// set node-role labels itself): Liqo advertises that Node's address.
const ControlPlaneLabel = "node-role.kubernetes.io/control-plane"

func (n *Node) labelControlPlane(ctx context.Context, cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:""}}}`, ControlPlaneLabel)
	if _, err := cs.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("labelling Node %s as the control plane: %w", n.Name, err)
	}
	return nil
}

// nodeKubeconfig writes a kubeconfig for user (in groups) that reaches the
// API server the way the Node does, and returns its path.
func (c *Cluster) nodeKubeconfig(node *Node, user string, groups ...string) (string, error) {
	cfg, err := c.AddUser(user, groups...)
	if err != nil {
		return "", err
	}
	cfg.Host = "https://" + net.JoinHostPort(node.IP, strconv.Itoa(APIServerPort))
	path := filepath.Join(node.dir, strings.ReplaceAll(user, ":", "-")+".kubeconfig")
	if err := os.MkdirAll(node.dir, 0o700); err != nil {
		return "", err
	}
	return path, WriteKubeconfig(path, user, cfg)
}

// start runs one daemon with its output in dir/<name>.log and env added;
// it must not outlive the process that started it.
func (n *Node) start(name string, cmd *exec.Cmd, env ...string) error {
	log := filepath.Join(n.dir, name+".log")
	f, err := os.Create(log)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(append(os.Environ(), "PATH="+n.bins+":"+os.Getenv("PATH")), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("starting %s: %w", name, err)
	}
	p := &nodeProcess{name: name, log: log, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); f.Close() }()
	n.procs = append(n.procs, p)
	return nil
}

// LoadImage loads an image archive (docker-archive or OCI, what `make
// image` writes: bin/liqo-auth-controller-image.tar) into the Node's
// runtime, where the kubelet finds it without a registry.
func (n *Node) LoadImage(ctx context.Context, archive string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(n.bins, "ctr"), "--address", containerdSocket(n.dir), "-n", "k8s.io",
		"images", "import", "--all-platforms", archive)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("loading image %s into Node %s: %v: %s", archive, n.Name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// startContainerd starts containerd and returns once it serves: it says so
// on the sd_notify socket it is given (READY=1), as it tells systemd.
func (n *Node) startContainerd(ctx context.Context, config string) error {
	path := filepath.Join(n.dir, "containerd.notify")
	_ = os.Remove(path)
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("the containerd readiness socket: %w", err)
	}
	defer notify.Close()
	if err := n.start("containerd", n.net.command(filepath.Join(n.bins, "containerd"), "--config", config), "NOTIFY_SOCKET="+path); err != nil {
		return err
	}
	p := n.procs[len(n.procs)-1]
	ready := make(chan struct{})
	go func() {
		buf := make([]byte, 512)
		for {
			k, err := notify.Read(buf)
			if err != nil {
				return // closed: the wait below ended otherwise
			}
			if strings.Contains(string(buf[:k]), "READY=1") {
				close(ready)
				return
			}
		}
	}()
	select {
	case <-ready:
		return nil
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("Node %s: containerd exited (%v): see %s", n.Name, err, p.log)
	case <-ctx.Done():
		return fmt.Errorf("Node %s: containerd did not start: %w", n.Name, ctx.Err())
	}
}

// DialContext connects from inside the Node's network namespace: what
// succeeds here, the Node (and, through it, its Pods) reaches. A
// rest.Config's Dial set to it is a client on the Node.
func (n *Node) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return n.net.dial(ctx, network, addr)
}

// waitReady waits until the Node is Ready and schedulable; a daemon that exits first
// ends the wait with its log's name.
func (n *Node) waitReady(ctx context.Context, cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, nodeReadyTimeout,
		fmt.Errorf("Node %s is not Ready after %s: see the logs in %s", n.Name, nodeReadyTimeout, n.dir))
	defer cancel()
	for _, p := range n.procs {
		go func() {
			select {
			case err := <-p.done:
				p.done <- err
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "nodes", "", fields.OneTermEqualSelector("metadata.name", n.Name))
	_, err = watchtools.UntilWithSync(ctx, lw, &corev1.Node{}, nil, func(e watch.Event) (bool, error) {
		node, ok := e.Object.(*corev1.Node)
		return ok && nodeReady(node), nil
	})
	if err == nil {
		return nil
	}
	if exited := n.exited(); exited != nil {
		return exited
	}
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	return err
}

// nodeReady tells whether node is Ready and takes Pods: the kubelet
// registers it tainted not-ready until the Node lifecycle sees it Ready.
func nodeReady(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady {
			return false
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// exited names the first daemon that is no longer running, with its log.
func (n *Node) exited() error {
	for _, p := range n.procs {
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("Node %s: %s exited (%v): see %s", n.Name, p.name, err, p.log)
		default:
		}
	}
	return nil
}

// stop stops the Node's daemons, its containers and their mounts, and
// removes its network namespace.
func (n *Node) stop() error {
	for _, l := range n.listeners {
		l.Close()
	}
	var errs []error
	// The kubelet first (it would restart what is killed), containerd last.
	for i := len(n.procs) - 1; i >= 0; i-- {
		p := n.procs[i]
		if p.name == "containerd" {
			errs = append(errs, n.killContainers())
		}
		terminate(p.cmd.Process, p.done)
	}
	n.procs = nil
	errs = append(errs, cleanNodeDir(n.dir))
	n.net.destroy()
	return errors.Join(errs...)
}

// nodeControllers are the kube-controller-manager controllers Pods need
// beside the lab's usual three: ServiceAccounts and the root CA in every
// namespace, Deployments, ReplicaSets, EndpointSlices (Services), the
// removal of Pods whose Node is gone, and the Node lifecycle (it lifts the
// not-ready taint a new Node registers with, and taints a Node that stops).
const nodeControllers = "serviceaccount-controller,root-ca-certificate-publisher-controller,deployment-controller," +
	"replicaset-controller,endpointslice-controller,pod-garbage-collector-controller,node-lifecycle-controller"

// configureNodeAPIServer makes the API server one a Node and its Pods use:
// served with a certificate for the Node's address and the `kubernetes`
// Service, advertised on the Node's address (the Service's endpoint), with
// the Node authorizer and NodeRestriction for the kubelet, ServiceAccount
// admission for Pods' tokens (envtest turns it off), and a client
// certificate for the kubelets' API (logs, exec).
func (c *Cluster) configureNodeAPIServer(api *envtest.APIServer, dir string) error {
	certDir := filepath.Join(dir, c.Name+"-apiserver-pki")
	ca, err := c.ca.writeNodeServingCerts(certDir, c.nodeNet.NodeIP)
	if err != nil {
		return err
	}
	api.CertDir = certDir
	api.SecureServing.CA = ca
	kubeletClient, err := c.ca.AddUser(envtest.User{Name: "kube-apiserver-kubelet-client", Groups: []string{"system:masters"}}, &rest.Config{})
	if err != nil {
		return err
	}
	certFile, keyFile := filepath.Join(certDir, "kubelet-client.crt"), filepath.Join(certDir, "kubelet-client.key")
	if err := writeFiles(map[string]string{certFile: string(kubeletClient.CertData), keyFile: string(kubeletClient.KeyData)}); err != nil {
		return err
	}
	args := api.Configure()
	args.Set("advertise-address", c.nodeNet.NodeIP)
	args.Set("authorization-mode", "Node,RBAC")
	args.Set("enable-admission-plugins", "NodeRestriction")
	args.Set("disable-admission-plugins", "")
	args.Set("kubelet-client-certificate", certFile)
	args.Set("kubelet-client-key", keyFile)
	args.Set("kubelet-preferred-address-types", "InternalIP")
	return nil
}

// apiServerPort is the API server's secure port on loopback.
func (c *Cluster) apiServerPort() int {
	u, err := url.Parse(c.Config.Host)
	if err != nil {
		return 0
	}
	port, _ := strconv.Atoi(u.Port())
	return port
}

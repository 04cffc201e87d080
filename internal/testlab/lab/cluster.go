// Package lab starts real Kubernetes control planes (etcd, kube-apiserver and
// kube-controller-manager) on loopback for tests, benchmarks and the demo.
package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Options tune the control planes a lab starts.
type Options struct {
	// Dir receives one kubeconfig per cluster (<name>.kubeconfig) and the
	// controller-manager logs. Empty: a temporary folder removed on Stop.
	Dir string
	// BinaryDir holds the binaries; empty: BinaryDir().
	BinaryDir string
	// ControllerManagerQPS raises kube-controller-manager's client rate limit
	// (default 20 QPS caps CSR signing at ~20/s); 0 keeps the default.
	ControllerManagerQPS int
	// SigningDuration sets the validity of issued certificates; 0 = 1 year.
	SigningDuration time.Duration

	// What a cluster that only consumes needs (the soak runs many): it signs
	// nothing and deletes no namespace, so NoControllerManager runs none;
	// Etcd, when set, is a shared etcd (StartEtcd) the API server stores in
	// under a prefix of its own (/<name>) instead of starting its own;
	// APIServerArgs are set on kube-apiserver's command line (flag name
	// without dashes -> value), e.g. "watch-cache": "false"; APIServerEnv
	// ("NAME=value") is added to its environment, e.g. a GOMEMLIMIT.
	NoControllerManager bool
	Etcd                *Etcd
	APIServerArgs       map[string]string
	APIServerEnv        []string

	// Nodes gives each cluster a Node on which Pods run (Cluster.Node), in
	// a network namespace of its own; NodeBinaryDir holds its binaries
	// (empty: NodeBinaryDir()).
	Nodes         bool
	NodeBinaryDir string
	// Images are docker-archives Up loads into every Node once the
	// clusters are up (`liqo-auth-lab up --nodes --load-image`).
	Images []string
}

// Etcd is an etcd several clusters' API servers share (Options.Etcd).
type Etcd struct {
	etcd      *envtest.Etcd
	scriptDir string
}

// StartEtcd starts an etcd to share (BinaryDir's when bins is "").
func StartEtcd(bins string) (*Etcd, error) {
	if bins == "" {
		var err error
		if bins, err = BinaryDir(); err != nil {
			return nil, err
		}
	}
	quietControllerRuntime()
	scriptDir, err := os.MkdirTemp("", "liqo-auth-lab-etcd-")
	if err != nil {
		return nil, err
	}
	path, err := diesWithParent(scriptDir, "etcd", filepath.Join(bins, "etcd"), nil)
	if err != nil {
		_ = os.RemoveAll(scriptDir)
		return nil, err
	}
	e := &envtest.Etcd{Path: path, StartTimeout: time.Minute}
	if err := e.Start(); err != nil {
		_ = os.RemoveAll(scriptDir)
		return nil, fmt.Errorf("starting the shared etcd: %w", err)
	}
	return &Etcd{etcd: e, scriptDir: scriptDir}, nil
}

// Stop stops the shared etcd and removes its data.
func (e *Etcd) Stop() error {
	defer os.RemoveAll(e.scriptDir)
	return e.etcd.Stop()
}

// Cluster is one running control plane.
type Cluster struct {
	Name string
	// Config authenticates as an admin (group system:masters).
	Config *rest.Config
	// KubeconfigPath is an admin kubeconfig with an absolute server URL.
	KubeconfigPath string

	env     *envtest.Environment
	api     *envtest.APIServer // alone on a shared etcd (Options.Etcd)
	ca      *clientCA
	kcm     *exec.Cmd
	kcmDone chan error
	tempDir string
	// apiServerEnv is Options.APIServerEnv, kept for a restart.
	apiServerEnv []string

	// Node is the cluster's Node (Options.Nodes), nil without one.
	Node    *Node
	nodeNet *nodeNet
}

// StartCluster starts etcd, kube-apiserver and kube-controller-manager
// (CSR signing, namespace and garbage-collector controllers).
func StartCluster(ctx context.Context, name string, opts Options) (c *Cluster, err error) {
	bins := opts.BinaryDir
	if bins == "" {
		if bins, err = BinaryDir(); err != nil {
			return nil, err
		}
	}
	quietControllerRuntime()
	// The cleanup below needs the cluster being started: an error return
	// sets c to nil before it runs.
	starting := &Cluster{Name: name}
	c = starting
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "liqo-auth-lab-"+name+"-"); err != nil {
			return nil, err
		}
		c.tempDir = dir
	} else if err = os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = starting.Stop()
			err = fmt.Errorf("starting cluster %s: %w", name, err)
		}
	}()

	if c.ca, err = newClientCA(); err != nil {
		return nil, err
	}
	var nodeBins string
	if opts.Nodes {
		if nodeBins = opts.NodeBinaryDir; nodeBins == "" {
			if nodeBins, err = NodeBinaryDir(); err != nil {
				return nil, err
			}
		}
		if c.nodeNet, err = allocateNodeNet(filepath.Join(dir, name+"-node")); err != nil {
			return nil, err
		}
	}
	c.apiServerEnv = opts.APIServerEnv
	if opts.Etcd != nil {
		err = c.startAPIServerOnly(bins, dir, opts)
	} else {
		err = c.startControlPlane(bins, dir, opts)
	}
	if err != nil {
		return nil, err
	}
	c.Config.Host = strings.TrimSuffix(c.Config.Host, "/")
	c.KubeconfigPath = filepath.Join(dir, name+".kubeconfig")
	if err = WriteKubeconfig(c.KubeconfigPath, name, c.Config); err != nil {
		return nil, err
	}
	if opts.NoControllerManager {
		return c, nil
	}
	if err = c.startControllerManager(ctx, bins, dir, opts); err != nil {
		return nil, err
	}
	if c.nodeNet != nil {
		if err = c.startNode(ctx, c.nodeNet, dir, nodeBins, c.apiServerPort()); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// startControlPlane starts etcd and kube-apiserver (envtest).
func (c *Cluster) startControlPlane(bins, dir string, opts Options) (err error) {
	// KUBEBUILDER_ASSETS and TEST_ASSET_* override BinaryAssetsDirectory;
	// pinning the paths keeps a stray environment from picking other binaries.
	c.env = &envtest.Environment{BinaryAssetsDirectory: bins, ControlPlaneStartTimeout: time.Minute}
	etcd, err := diesWithParent(dir, c.Name+"-etcd", filepath.Join(bins, "etcd"), nil)
	if err != nil {
		return err
	}
	c.env.ControlPlane.Etcd = &envtest.Etcd{Path: etcd}
	if err = c.configureAPIServer(c.env.ControlPlane.GetAPIServer(), bins, dir, opts); err != nil {
		return err
	}
	c.Config, err = c.env.Start()
	return err
}

// startAPIServerOnly starts a kube-apiserver on the shared etcd, under a
// prefix of its own.
func (c *Cluster) startAPIServerOnly(bins, dir string, opts Options) error {
	// Many of them start on a loaded machine (the soak): a longer start.
	api := &envtest.APIServer{EtcdURL: opts.Etcd.etcd.URL, StartTimeout: 3 * time.Minute}
	if err := c.configureAPIServer(api, bins, dir, opts); err != nil {
		return err
	}
	api.Configure().Set("etcd-prefix", "/"+c.Name)
	if err := api.Start(); err != nil {
		return err
	}
	c.api = api
	plane := &envtest.ControlPlane{APIServer: api}
	admin, err := plane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	c.Config = admin.Config()
	return nil
}

func (c *Cluster) configureAPIServer(api *envtest.APIServer, bins, dir string, opts Options) error {
	api.Path = filepath.Join(bins, "kube-apiserver")
	api.SecureServing.Authn = c.ca
	if c.nodeNet != nil {
		if err := c.configureNodeAPIServer(api, dir); err != nil {
			return err
		}
	}
	for k, v := range opts.APIServerArgs {
		api.Configure().Set(k, v)
	}
	// envtest starts the binary with this process's environment: the script
	// adds Options.APIServerEnv.
	script, err := diesWithParent(dir, c.Name+"-kube-apiserver", api.Path, opts.APIServerEnv)
	if err != nil {
		return err
	}
	api.Path = script
	return nil
}

// apiServerProcess is the cluster's envtest kube-apiserver (nil: not running).
func (c *Cluster) apiServerProcess() *envtest.APIServer {
	if c.api != nil {
		return c.api
	}
	if c.env != nil {
		return c.env.ControlPlane.APIServer
	}
	return nil
}

func (c *Cluster) startControllerManager(ctx context.Context, bins, dir string, opts Options) error {
	logPath := filepath.Join(dir, c.Name+"-kube-controller-manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	controllers := "csrsigning,namespace,garbagecollector"
	if c.nodeNet != nil {
		controllers += "," + nodeControllers
	}
	args := []string{
		"--kubeconfig=" + c.KubeconfigPath,
		"--controllers=" + controllers,
		"--cluster-signing-cert-file=" + c.ca.certPath(),
		"--cluster-signing-key-file=" + c.ca.keyPath(),
		"--leader-elect=false",
		"--secure-port=0",
	}
	if opts.ControllerManagerQPS > 0 {
		args = append(args, "--kube-api-qps="+strconv.Itoa(opts.ControllerManagerQPS),
			"--kube-api-burst="+strconv.Itoa(2*opts.ControllerManagerQPS))
	}
	if opts.SigningDuration > 0 {
		args = append(args, "--cluster-signing-duration="+opts.SigningDuration.String())
	}
	if c.nodeNet != nil {
		// Published to every namespace as kube-root-ca.crt: what Pods'
		// in-cluster config verifies the API server with.
		args = append(args, "--root-ca-file="+c.ca.certPath())
	}
	cmd := exec.Command(filepath.Join(bins, "kube-controller-manager"), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The controller manager must not outlive the process that started it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("starting kube-controller-manager: %w", err)
	}
	c.kcm = cmd
	c.kcmDone = make(chan error, 1)
	go func() {
		c.kcmDone <- cmd.Wait()
		logFile.Close()
	}()
	select {
	case err := <-c.kcmDone:
		return fmt.Errorf("kube-controller-manager exited at once (%v): see %s", err, logPath)
	case <-time.After(200 * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AddUser returns a config that authenticates as user in groups through a
// client certificate signed by the cluster's client CA.
func (c *Cluster) AddUser(user string, groups ...string) (*rest.Config, error) {
	return c.ca.AddUser(envtest.User{Name: user, Groups: groups}, c.Config)
}

// Stop stops every process of the cluster and removes temporary files.
func (c *Cluster) Stop() error {
	var errs []error
	if c.Node != nil {
		errs = append(errs, c.Node.stop())
		c.Node, c.nodeNet = nil, nil
	} else if c.nodeNet != nil {
		c.nodeNet.destroy()
		c.nodeNet = nil
	}
	if c.kcm != nil && c.kcm.Process != nil {
		terminate(c.kcm.Process, c.kcmDone)
		c.kcm = nil
	}
	c.stopRestartedAPIServer()
	if c.api != nil {
		errs = append(errs, c.api.Stop())
		c.api = nil
	}
	if c.env != nil && c.Config != nil {
		errs = append(errs, c.env.Stop())
		c.env = nil
	}
	if c.tempDir != "" {
		errs = append(errs, os.RemoveAll(c.tempDir))
	}
	return errors.Join(errs...)
}

// WriteKubeconfig writes a kubeconfig file (mode 0600) for cfg, with a
// cluster, user and context all named name.
func WriteKubeconfig(path, name string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	kc.CurrentContext = name
	return clientcmd.WriteToFile(*kc, path)
}

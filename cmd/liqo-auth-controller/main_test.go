package main_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labbin"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authnv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Real control planes shared by this package's tests, started by the first
// test that needs them (--help and --version need none).
var testLab = labtest.Lazy("provider", "consumer")

// binary is the controller, built once for the package's tests.
var binary string

// clusters returns the lab's clusters, starting them on first use.
func clusters(t testing.TB) []*lab.Cluster { return testLab.Clusters(t) }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "liqo-auth-controller-test-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if binary, err = labbin.Path(dir, "liqo-auth-controller"); err != nil {
		fmt.Fprintf(os.Stderr, "building the controller: %v\n", err)
		os.Exit(1)
	}
	os.Exit(testLab.Run(m))
}

// prepared is a lab cluster with init done and the controller manifests
// applied, in its own Liqo namespace.
type prepared struct {
	admin *kube.Cluster
	id    string
	lab   *lab.Cluster
}

func prepare(t *testing.T, i int, id string) prepared {
	cluster := clusters(t)[i]
	ctx := labtest.Context(t)
	c, err := kube.NewCluster(cluster.Config, "liqo-"+id)
	require.NoError(t, err)
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: id})
	require.NoError(t, err)
	changes, err := c.InstallController(ctx, "")
	require.NoError(t, err)
	require.NotEmpty(t, changes)
	// Applying again changes nothing.
	again, err := c.InstallController(ctx, "")
	require.NoError(t, err)
	for _, ch := range again {
		assert.Equal(t, kube.Unchanged, ch.Action, ch.Object)
	}
	return prepared{admin: c, id: id, lab: cluster}
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the
// controller's ServiceAccount, with a token from the TokenRequest API.
func (p prepared) serviceAccountKubeconfig(t *testing.T) (string, *rest.Config) {
	ctx := labtest.Context(t)
	expiry := int64(3600)
	tr, err := p.admin.Kube.CoreV1().ServiceAccounts(p.admin.Namespace).CreateToken(ctx, "liqo-auth-controller",
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := rest.AnonymousClientConfig(p.lab.Config)
	cfg.BearerToken = tr.Status.Token
	path := filepath.Join(t.TempDir(), p.id+"-sa.kubeconfig")
	require.NoError(t, lab.WriteKubeconfig(path, p.id, cfg))
	return path, cfg
}

// process is a running controller binary.
type process struct {
	cmd                   *exec.Cmd
	identity              string
	healthURL, metricsURL string
	exited                chan error
	log                   string // its stdout and stderr
}

// handedOut holds every address freeAddr gave: a port closed after the
// probe can come back from the next Listen(":0"), and two replicas of one
// test once got the same health port (the second exited at once).
var handedOut sync.Map

func freeAddr(t *testing.T) string {
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		if _, taken := handedOut.LoadOrStore(addr, true); !taken {
			return addr
		}
	}
}

func (p prepared) start(t *testing.T, kubeconfig, identity string, extra ...string) *process {
	health, metrics := freeAddr(t), freeAddr(t)
	args := append([]string{"--kubeconfig", kubeconfig, "--liqo-namespace", p.admin.Namespace, "--identity", identity,
		"--health-address", health, "--metrics-address", metrics}, extra...)
	cmd := exec.Command(binary, args...)
	log, err := os.Create(filepath.Join(t.TempDir(), identity+".log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	pr := &process{cmd: cmd, identity: identity, healthURL: "http://" + health, metricsURL: "http://" + metrics, exited: make(chan error, 1), log: log.Name()}
	go func() { pr.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-pr.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s log:\n%s", identity, b)
		}
	})
	return pr
}

// leaseHolder waits (watching) until the controller Lease has a holder.
func (p prepared) leaseHolder(t *testing.T, ctx context.Context, not string) string {
	leases := p.admin.Kube.CoordinationV1().Leases(p.admin.Namespace)
	l, err := kube.WaitFor(ctx, kube.ListWatch(leases.List, leases.Watch, kube.ByName(kube.ControllerLeaseName)), "controller lease",
		func(l *coordinationv1.Lease) (bool, error) {
			h := l.Spec.HolderIdentity
			return h != nil && *h != "" && *h != not, nil
		})
	require.NoError(t, err)
	return *l.Spec.HolderIdentity
}

func get(t *testing.T, url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

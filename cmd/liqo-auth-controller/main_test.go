package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authnv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

var (
	clusters []*lab.Cluster
	binary   string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "liqo-auth-controller-test-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "liqo-auth-controller")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the controller: %v\n%s", err, out)
		os.Exit(1)
	}
	os.Exit(labtest.Main(m, &clusters, "provider", "consumer"))
}

// prepared is a lab cluster with init done and the controller manifests
// applied, in its own Liqo namespace.
type prepared struct {
	admin *kube.Cluster
	id    string
	lab   *lab.Cluster
}

func prepare(t *testing.T, i int, id string) prepared {
	ctx := labtest.Context(t)
	c, err := kube.NewCluster(clusters[i].Config, "liqo-"+id)
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
	return prepared{admin: c, id: id, lab: clusters[i]}
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

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
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

// The controller, run as its ServiceAccount, serves a full handshake on
// both sides (so its RBAC is sufficient), and is denied what it does not need.
func TestControllerAsServiceAccountServesHandshake(t *testing.T) {
	ctx := labtest.Context(t)
	provider, consumer := prepare(t, 0, "sa-provider"), prepare(t, 1, "sa-consumer")
	pk, pcfg := provider.serviceAccountKubeconfig(t)
	ck, _ := consumer.serviceAccountKubeconfig(t)
	pp := provider.start(t, pk, "provider-0")
	cp := consumer.start(t, ck, "consumer-0", "--logging-format=json")
	provider.leaseHolder(t, ctx, "")
	consumer.leaseHolder(t, ctx, "")

	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer.admin, Provider: provider.admin,
		Engine: flows.EngineOptions{NoInProcess: true}}, nil)
	require.NoError(t, err)
	assert.Equal(t, flows.EngineController, res.ProviderEngine)
	assert.Equal(t, flows.EngineController, res.ConsumerEngine)
	v, err := flows.Verify(ctx, consumer.admin, provider.id)
	require.NoError(t, err)
	assert.Equal(t, consumer.id, v.User)

	// Structured logs: with --logging-format=json, one JSON object a line.
	out, err := os.ReadFile(cp.log)
	require.NoError(t, err)
	var messages []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var entry struct {
			Msg string `json:"msg"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &entry), "log line %q", line)
		messages = append(messages, entry.Msg)
	}
	assert.Contains(t, messages, "Starting")
	assert.Contains(t, messages, "Leadership changed")

	// Denied what it does not need.
	sa, err := kube.NewCluster(pcfg, provider.admin.Namespace)
	require.NoError(t, err)
	_, err = sa.Kube.CoreV1().ConfigMaps("kube-system").List(ctx, metav1.ListOptions{})
	assert.True(t, isForbidden(err), "list configmaps: %v", err)
	err = sa.Kube.CoreV1().Secrets(provider.admin.Namespace).Delete(ctx, kube.AuthKeysSecretName, metav1.DeleteOptions{})
	assert.True(t, isForbidden(err), "delete secrets: %v", err)
	_, err = sa.Kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	assert.True(t, isForbidden(err), "list pods: %v", err)
	_, err = sa.Kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "escalate"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "mallory"}},
	}, metav1.CreateOptions{})
	assert.True(t, isForbidden(err), "bind cluster-admin: %v", err)

	// /metrics exposes the series; /readyz and /healthz answer.
	code, body := get(t, pp.metricsURL+"/metrics")
	require.Equal(t, http.StatusOK, code)
	for _, series := range []string{"liqo_auth_workqueue_depth", "liqo_auth_workqueue_queue_duration_seconds",
		"liqo_auth_reconcile_total", "liqo_auth_reconcile_duration_seconds", "liqo_auth_certificate_expiry_timestamp_seconds"} {
		assert.Contains(t, body, series)
	}
	code, _ = get(t, pp.healthURL+"/readyz")
	assert.Equal(t, http.StatusOK, code)
	code, _ = get(t, pp.healthURL+"/healthz")
	assert.Equal(t, http.StatusOK, code)
}

func isForbidden(err error) bool { return err != nil && strings.Contains(err.Error(), "forbidden") }

// Two replicas: exactly one leads; stopping the leader mid-handshake, the
// other takes over and the handshake completes.
func TestLeaderFailoverMidHandshake(t *testing.T) {
	ctx := labtest.Context(t)
	provider, consumer := prepare(t, 0, "ha-provider"), prepare(t, 1, "ha-consumer")
	pk, _ := provider.serviceAccountKubeconfig(t)
	ck, _ := consumer.serviceAccountKubeconfig(t)
	replicas := map[string]*process{"replica-a": provider.start(t, pk, "replica-a"), "replica-b": provider.start(t, pk, "replica-b")}
	consumer.start(t, ck, "consumer-0")
	leader := provider.leaseHolder(t, ctx, "")
	require.Contains(t, replicas, leader)
	consumer.leaseHolder(t, ctx, "")

	stopped := make(chan struct{})
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer.admin, Provider: provider.admin,
		Engine: flows.EngineOptions{NoInProcess: true}}, func(ev handshake.Event) {
		if ev.Kind == handshake.StepDone && ev.Step == "generate-tenant" {
			// The Tenant is not applied yet: the next leader must accept it.
			require.NoError(t, replicas[leader].cmd.Process.Signal(syscall.SIGTERM))
			<-replicas[leader].exited
			close(stopped)
		}
	})
	require.NoError(t, err)
	<-stopped
	assert.NotEmpty(t, res.KubeconfigSecret)
	next := provider.leaseHolder(t, ctx, leader)
	assert.NotEqual(t, leader, next)
	assert.Contains(t, replicas, next)
}

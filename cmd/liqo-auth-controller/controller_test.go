//go:build cluster

package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The controller, run as its ServiceAccount, serves a full handshake on
// both sides (so its RBAC is sufficient), and is denied what it does not need.
func TestControllerAsServiceAccountServesHandshake(t *testing.T) {
	provider, consumer := prepare(t, 0, "sa-provider"), prepare(t, 1, "sa-consumer")
	ctx := labtest.Context(t)
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
	v, err := flows.Verify(ctx, consumer.admin, provider.id, nil)
	require.NoError(t, err)
	assert.Equal(t, consumer.id, v.User)
	// A ResourceSlice, replicated by the consumer's controller (which names
	// its own cluster from the cluster-ID ConfigMap) and answered by the
	// provider's, each with its ServiceAccount's rights only.
	st, err := flows.CreateResourceSlice(ctx, consumer.admin, artifact.SliceRequest{Name: "sa-slice", ProviderID: provider.id, CPU: "1"},
		flows.SliceOptions{Wait: true, StepTimeout: time.Minute, Engine: flows.EngineOptions{NoInProcess: true}}, nil)
	require.NoError(t, err, "the slice is replicated and answered")
	assert.NotEmpty(t, st.KubeconfigSecret, "the slice's kubeconfig Secret: %+v", st)

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
		"liqo_auth_reconcile_total", "liqo_auth_reconcile_duration_seconds", "liqo_auth_certificate_expiry_timestamp_seconds",
		"go_goroutines", "go_gc_heap_live_bytes", "process_resident_memory_bytes", "process_open_fds"} {
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
	provider, consumer := prepare(t, 0, "ha-provider"), prepare(t, 1, "ha-consumer")
	ctx := labtest.Context(t)
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

//go:build cluster

package lab_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// Two consumer-like clusters (no kube-controller-manager, no watch cache)
// on one shared etcd keep apart: same names, each its own data; and one
// can be paused without holding up the other; their kube-apiservers run
// with the environment asked for, also after a restart.
func TestClustersOnASharedEtcd(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	etcd, err := lab.StartEtcd("")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, etcd.Stop()) })
	env := []string{"GOMEMLIMIT=100MiB", "LIQO_AUTH_LAB_TEST=it's quoted"}
	opts := lab.Options{NoControllerManager: true, Etcd: etcd, APIServerArgs: map[string]string{"watch-cache": "false"},
		APIServerEnv: env}
	cs, err := lab.Start(ctx, opts, "shared-a", "shared-b")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lab.StopAll(cs)) })

	clients := make([]kubernetes.Interface, len(cs))
	for i, c := range cs {
		clients[i], err = kubernetes.NewForConfig(c.Config)
		require.NoError(t, err)
		_, err = clients[i].CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "same-name"},
			Data: map[string]string{"cluster": c.Name}}, metav1.CreateOptions{})
		require.NoError(t, err, "the same name on each cluster")
	}
	for i, c := range cs {
		got, err := clients[i].CoreV1().ConfigMaps("default").Get(ctx, "same-name", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, c.Name, got.Data["cluster"], "each cluster reads its own")
	}

	// A paused one does not hold the other up.
	require.NoError(t, cs[0].PauseAPIServer())
	_, err = clients[1].CoreV1().ConfigMaps("default").Get(ctx, "same-name", metav1.GetOptions{})
	assert.NoError(t, err)
	require.NoError(t, cs[0].ResumeAPIServer())
	_, err = clients[0].CoreV1().ConfigMaps("default").Get(ctx, "same-name", metav1.GetOptions{})
	assert.NoError(t, err)
	assertAPIServerEnv(t, cs[0], env)

	require.NoError(t, cs[1].KillAPIServer())
	require.NoError(t, cs[1].StartAPIServer(ctx))
	assertAPIServerEnv(t, cs[1], env)
}

func assertAPIServerEnv(t *testing.T, c *lab.Cluster, want []string) {
	t.Helper()
	pid, err := c.APIServerPID()
	require.NoError(t, err)
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	require.NoError(t, err)
	assert.Subset(t, strings.Split(string(raw), "\x00"), want, "kube-apiserver's environment")
}

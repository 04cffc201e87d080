//go:build cluster

package lab_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// A paused API server answers nothing until resumed; a killed one comes
// back on the same address with its data, and the clients made before
// keep working.
func TestAPIServerFaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, err := lab.StartCluster(ctx, "faults", lab.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Stop()) })
	kc, err := kubernetes.NewForConfig(c.Config)
	require.NoError(t, err)
	cms := kc.CoreV1().ConfigMaps("default")
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	require.NoError(t, c.PauseAPIServer())
	short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = cms.Get(short, "kept", metav1.GetOptions{})
	cancelShort()
	require.ErrorIs(t, err, context.DeadlineExceeded, "a paused API server must not answer")
	require.NoError(t, c.ResumeAPIServer())
	_, err = cms.Get(ctx, "kept", metav1.GetOptions{})
	require.NoError(t, err)

	for range 2 { // the second round restarts the process the faults started
		require.NoError(t, c.KillAPIServer())
		_, err = cms.Get(ctx, "kept", metav1.GetOptions{})
		require.Error(t, err, "a killed API server must not answer")
		require.Error(t, c.PauseAPIServer(), "a killed API server cannot be paused")

		start := time.Now()
		require.NoError(t, c.StartAPIServer(ctx))
		t.Logf("kube-apiserver ready again in %s", time.Since(start).Round(time.Millisecond))
		got, err := cms.Get(ctx, "kept", metav1.GetOptions{})
		require.NoError(t, err, "same address, certificates and etcd data")
		assert.Equal(t, "v", got.Data["k"])
	}
	require.Error(t, c.StartAPIServer(ctx), "a running API server is not started twice")

	// Paused, then killed: SIGKILL ends a stopped process too.
	require.NoError(t, c.PauseAPIServer())
	require.NoError(t, c.RestartAPIServer(ctx))
	_, err = cms.Get(ctx, "kept", metav1.GetOptions{})
	require.NoError(t, err)

	// The whole control plane down and up again.
	require.NoError(t, c.KillControlPlane())
	require.NoError(t, c.StartControlPlane(ctx))
	_, err = cms.Get(ctx, "kept", metav1.GetOptions{})
	require.NoError(t, err)
}

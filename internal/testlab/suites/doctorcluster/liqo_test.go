//go:build cluster

package doctorcluster_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// On a cluster where Liqo v1 is installed, its controller-manager serves:
// none running is a failure with Liqo's fix (init writes nothing there),
// its Deployment with no ready pod too; the key pair, which it makes when
// it starts, is missing until it does (the fix restarts it). REAL Liqo
// v1.2's reconcilers (liqo-peer) then make the keys, and its Deployment
// available (as the deployment controller a lab lacks would write it)
// passes the check.
func TestLiqoInstalled(t *testing.T) {
	lc := testLab.Clusters(t)[2]
	ctx := labtest.Context(t)
	const id = "dc-liqo"
	require.NoError(t, realliqov1.Install(ctx, lc.Config, "liqo-"+id, id))
	c := clusterOf(t, lc, id, true)

	d := diagnose(t, c, nil, time.Time{})
	passes(t, checkOf(t, d, "cluster-id", handshake.Local), id)
	passes(t, checkOf(t, d, "crds", handshake.Local), "established (Liqo v1's)")
	failedWith(t, checkOf(t, d, "cluster-keys", handshake.Local), "kubectl -n liqo-dc-liqo rollout restart deployment/liqo-controller-manager",
		"Secret liqo-dc-liqo/authentication-keys does not exist", "Liqo is installed: Liqo's controller-manager makes it when it starts")
	failedWith(t, checkOf(t, d, "controller-running", handshake.Local),
		"liqoctl install <provider> --cluster-id dc-liqo   # Liqo's chart makes its controller-manager again",
		"Liqo v1 is installed but its controller-manager does not run: no Deployment liqo-dc-liqo/liqo-controller-manager")

	deploy := labtest.Deployment("liqo-controller-manager", "controller-manager")
	deploy.Spec.Replicas = ptr.To[int32](1)
	deploy, err := c.Kube.AppsV1().Deployments(c.Namespace).Create(ctx, deploy, metav1.CreateOptions{})
	require.NoError(t, err)
	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local),
		"kubectl -n liqo-dc-liqo describe pods -l app=liqo-controller-manager && kubectl -n liqo-dc-liqo logs deployment/liqo-controller-manager",
		"Deployment liqo-dc-liqo/liqo-controller-manager has 0/1 replicas available: its pods are not ready")

	// Liqo's controller-manager starts (the fix of both).
	realliqov1.Start(t, lc.KubeconfigPath, realliqov1.Options{ClusterID: id, Namespace: c.Namespace, Provider: true, APIServerOverride: lc.Config.Host})
	deploy.Status.Replicas, deploy.Status.ReadyReplicas, deploy.Status.AvailableReplicas = 1, 1, 1
	_, err = c.Kube.AppsV1().Deployments(c.Namespace).UpdateStatus(ctx, deploy, metav1.UpdateOptions{})
	require.NoError(t, err)
	secrets := c.Kube.CoreV1().Secrets(c.Namespace)
	_, err = kube.WaitFor(ctx, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(kube.AuthKeysSecretName)), "Liqo's key pair", func(*corev1.Secret) (bool, error) { return true, nil })
	require.NoError(t, err)
	d = diagnose(t, c, nil, time.Time{})
	passes(t, checkOf(t, d, "cluster-keys", handshake.Local), "SHA256:")
	passes(t, checkOf(t, d, "controller-running", handshake.Local), "Liqo's liqo-controller-manager: 1/1 replicas available")
}

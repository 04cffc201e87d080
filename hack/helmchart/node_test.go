//go:build cluster

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// imageVersion tags the image this test builds.
const imageVersion = "v0.0.0-nodelab"

// buildControllerImage builds the controller's image for this machine's
// architecture as `make image` does (hack/image) and returns its
// docker-archive.
func buildControllerImage(t *testing.T, ctx context.Context) string {
	archive := filepath.Join(t.TempDir(), "liqo-auth-controller-image.tar")
	cmd := exec.CommandContext(ctx, "go", "run", ".", "--repo=../..", "--arch="+runtime.GOARCH, "--oci-dir=", "--tar="+archive,
		"--version="+imageVersion, "--revision=0000000000000000000000000000000000000000")
	cmd.Dir = filepath.Join("..", "image")
	cmd.Env = append(os.Environ(), "GOOS=", "GOARCH=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "hack/image: %s", out)
	return archive
}

// The chart as an admin installs it, on a cluster with a Node: the
// controller runs from the project's image, loaded into the Node's runtime
// without a registry, with the chart's defaults but the tag; its Pod
// becomes Ready through the kubelet's probes, with its ServiceAccount's
// in-cluster config.
func TestInstallRunsTheControllerOnANode(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	c, err := lab.StartCluster(ctx, "helm-node", lab.Options{Nodes: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Stop()) })
	require.NoError(t, c.Node.LoadImage(ctx, buildControllerImage(t, ctx)))

	install := action.NewInstall(actionConfig(t, c))
	install.ReleaseName, install.Namespace, install.CreateNamespace = testRelease, testNamespace, true
	_, err = install.RunWithContext(ctx, loadChart(t), values(t, fmt.Sprintf("image: {tag: %s, pullPolicy: Never}\n", imageVersion)))
	require.NoError(t, err)

	clients, err := kubernetes.NewForConfig(c.Config)
	require.NoError(t, err)
	deployments := clients.AppsV1().Deployments(testNamespace)
	lw := cache.NewListWatchFromClient(clients.AppsV1().RESTClient(), "deployments", testNamespace,
		fields.OneTermEqualSelector("metadata.name", "liqo-auth-controller"))
	_, err = watchtools.UntilWithSync(ctx, lw, &appsv1.Deployment{}, nil, func(e watch.Event) (bool, error) {
		d, ok := e.Object.(*appsv1.Deployment)
		return ok && d.Spec.Replicas != nil && d.Status.ReadyReplicas == *d.Spec.Replicas && d.Status.UpdatedReplicas == *d.Spec.Replicas, nil
	})
	if err != nil {
		d, _ := deployments.Get(context.Background(), "liqo-auth-controller", metav1.GetOptions{})
		pods, _ := clients.CoreV1().Pods(testNamespace).List(context.Background(), metav1.ListOptions{})
		for _, p := range pods.Items {
			t.Logf("pod %s: %s %+v %+v", p.Name, p.Status.Phase, p.Status.Conditions, p.Status.ContainerStatuses)
		}
		t.Logf("deployment status %+v; Node logs in the lab's folder", d.Status)
	}
	require.NoError(t, err, "the controller's Deployment becomes ready")
	pods, err := clients.CoreV1().Pods(testNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=liqo-auth-controller"})
	require.NoError(t, err)
	require.NotEmpty(t, pods.Items)
	for _, p := range pods.Items {
		assert.Equal(t, c.Node.Name, p.Spec.NodeName)
		require.Len(t, p.Status.ContainerStatuses, 1)
		cs := p.Status.ContainerStatuses[0]
		assert.True(t, cs.Ready, "%s ready through its readiness probe", p.Name)
		assert.Zero(t, cs.RestartCount, "%s never failed its liveness probe", p.Name)
		assert.Equal(t, corev1.PodRunning, p.Status.Phase)
	}
}

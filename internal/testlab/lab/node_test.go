//go:build cluster

package lab_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// A cluster with a Node runs a Pod to Ready, from an image loaded into the
// Node's runtime without a registry.
func TestNodeRunsAPod(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := lab.StartCluster(ctx, "pods", lab.Options{Nodes: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Stop()) })
	require.NotNil(t, c.Node)

	cs, err := kubernetes.NewForConfig(c.Config)
	require.NoError(t, err)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "sleeper", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "pause", Image: lab.PauseImage, ImagePullPolicy: corev1.PullNever,
		}}},
	}
	_, err = cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "pods", "default", fields.OneTermEqualSelector("metadata.name", "sleeper"))
	_, err = watchtools.UntilWithSync(ctx, lw, &corev1.Pod{}, nil, func(e watch.Event) (bool, error) {
		p, ok := e.Object.(*corev1.Pod)
		if !ok {
			return false, nil
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		got, _ := cs.CoreV1().Pods("default").Get(context.Background(), "sleeper", metav1.GetOptions{})
		node, _ := cs.CoreV1().Nodes().Get(context.Background(), c.Node.Name, metav1.GetOptions{})
		t.Logf("pod: %+v\nnode taints %+v conditions %+v", got.Status, node.Spec.Taints, node.Status.Conditions)
	}
	require.NoError(t, err)
}

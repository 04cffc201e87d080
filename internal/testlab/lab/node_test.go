//go:build cluster

package lab_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
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

// Each cluster's Node is in a network namespace of its own: the consumer's
// Node reaches the provider's API server on the provider Node's address
// (what Liqo advertises), and not on the loopback address of the admin's
// kubeconfig, which the host reaches.
func TestNodesSeeTheirOwnNetwork(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	clusters, err := lab.Start(ctx, lab.Options{Nodes: true}, "net-provider", "net-consumer")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, lab.StopAll(clusters)) })
	provider, consumer := clusters[0], clusters[1]
	require.NotEqual(t, provider.Node.IP, consumer.Node.IP)

	advertised := net.JoinHostPort(provider.Node.IP, strconv.Itoa(lab.APIServerPort))
	fromNode := rest.CopyConfig(provider.Config)
	fromNode.Host = "https://" + advertised
	fromNode.Dial = consumer.Node.DialContext
	cs, err := kubernetes.NewForConfig(fromNode)
	require.NoError(t, err)
	v, err := cs.Discovery().ServerVersion()
	require.NoError(t, err, "the consumer's Node reaches the provider's advertised address")
	assert.Equal(t, lab.KubeVersion, v.GitVersion)

	loopback := strings.TrimPrefix(provider.Config.Host, "https://")
	_, err = consumer.Node.DialContext(ctx, "tcp", loopback)
	require.Error(t, err, "the consumer's Node must not reach the admin's loopback address %s", loopback)
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", loopback)
	require.NoError(t, err, "the host reaches it")
	c.Close()
}

package labtest

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Objects a lab's clusters lack (they run no kubelet and no Pods), made as
// the real ones look to a client.

// CreateNode makes a Node with labels and addresses, as a kubelet would (a
// lab has none), and removes it when owner ends. Nodes are cluster-wide:
// tests of one package that make them must not run in parallel.
func CreateNode(t, owner testing.TB, cs kubernetes.Interface, name string, labels map[string]string, addrs ...corev1.NodeAddress) {
	t.Helper()
	ctx := context.Background()
	n, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Node %s: %v", name, err)
	}
	owner.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	n.Status.Addresses = addrs
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting the addresses of Node %s: %v", name, err)
	}
}

// Deployment is a Deployment scaled to zero whose one container runs with
// args: what a client reads a controller's flags from (Liqo's, ours).
func Deployment(name, container string, args ...string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Replicas: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: container, Image: "example/" + container, Args: args}}}}},
	}
}

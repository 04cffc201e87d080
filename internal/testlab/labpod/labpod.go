// Package labpod runs a probe Pod on a lab cluster's Node (an image of
// labimage.Wrap) until it ends, and returns what its container wrote in
// its termination message: how the tests ask a question from inside a
// cluster.
package labpod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Run creates pod (one container, RestartPolicy Never), waits for it to
// end, deletes it, and returns its container's termination message and
// exit code.
func Run(ctx context.Context, c *kube.Cluster, pod *corev1.Pod) (message string, exitCode int32, err error) {
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pods := c.Kube.CoreV1().Pods(pod.Namespace)
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return "", 0, err
	}
	defer func() { _ = pods.Delete(context.WithoutCancel(ctx), pod.Name, metav1.DeleteOptions{}) }()
	done, err := kube.WaitFor(ctx, kube.ListWatch(pods.List, pods.Watch, kube.ByName(pod.Name)), "the Pod "+pod.Name+" to end",
		func(p *corev1.Pod) (bool, error) {
			return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed, nil
		})
	if err != nil {
		return "", 0, err
	}
	if len(done.Status.ContainerStatuses) != 1 || done.Status.ContainerStatuses[0].State.Terminated == nil {
		return "", 0, fmt.Errorf("the Pod %s ended without a terminated container: %+v", pod.Name, done.Status)
	}
	term := done.Status.ContainerStatuses[0].State.Terminated
	return term.Message, term.ExitCode, nil
}

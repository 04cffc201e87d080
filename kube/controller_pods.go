package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControllerPodSelector finds the in-cluster controller's Pods (the chart's
// and install controller's name label).
const ControllerPodSelector = "app.kubernetes.io/name=" + ControllerLeaseName

// ControllerServing is what WaitControllerServing found.
type ControllerServing struct {
	// NoReadyNode: the cluster has Nodes Nodes and none is Ready, so the
	// Pods cannot run until one is: not waited for.
	NoReadyNode bool
	Nodes       int
	// Pod is the first Ready Pod, on Node; Holder holds the Lease.
	Pod, Node, Holder string
}

// ReadyNodes counts the cluster's Nodes and its Ready ones; listed is false
// when this kubeconfig may not list Nodes.
func (c *Cluster) ReadyNodes(ctx context.Context) (all, ready int, listed bool, err error) {
	nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if apierrors.IsForbidden(err) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	for _, n := range nodes.Items {
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	return len(nodes.Items), ready, true, nil
}

// WaitControllerServing waits, watching, until a Pod of the controller's
// Deployment running image is Ready and the controller holds its Lease: from then on it
// serves the cluster (and in-process runs hand over to it). Without a
// Ready Node it returns at once, NoReadyNode set. A Pod that cannot run
// (its image not on the Node and not pullable, unschedulable, its
// container failing) ends the wait with one line naming the fix.
func (c *Cluster) WaitControllerServing(ctx context.Context, image string) (*ControllerServing, error) {
	all, ready, listed, err := c.ReadyNodes(ctx)
	if err != nil {
		return nil, err
	}
	if listed && ready == 0 {
		return &ControllerServing{NoReadyNode: true, Nodes: all}, nil
	}
	pods := c.Kube.CoreV1().Pods(c.Namespace)
	var mu sync.Mutex
	seen := "no Pod yet"
	pod, err := WaitFor(ctx, ListWatch(pods.List, pods.Watch, BySelector(ControllerPodSelector)), "the controller's Pods to be Ready",
		func(p *corev1.Pod) (bool, error) {
			// Another image's Pods (a rolling update's old ones) do not count.
			if p.DeletionTimestamp != nil || len(p.Spec.Containers) == 0 || p.Spec.Containers[0].Image != image {
				return false, nil
			}
			if err := podCannotRun(p, c.Namespace); err != nil {
				return false, err
			}
			mu.Lock()
			seen = "Pod " + p.Name + " " + podState(p)
			mu.Unlock()
			return podReady(p), nil
		})
	if errors.Is(err, ErrWaitTimeout) {
		mu.Lock()
		defer mu.Unlock()
		return nil, fmt.Errorf("the controller's Pods are not Ready yet (%s): kubectl -n %s describe pods -l %s", seen, c.Namespace, ControllerPodSelector)
	}
	if err != nil {
		return nil, err
	}
	s := &ControllerServing{Pod: pod.Name, Node: pod.Spec.NodeName}
	if err := WaitLease(ctx, c, ControllerLeaseName, true, nil); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the controller's Pod %s is Ready but it does not hold its Lease %s/%s yet: kubectl -n %s logs %s", pod.Name, c.Namespace, ControllerLeaseName, c.Namespace, pod.Name)
		}
		return nil, err
	}
	if l, err := c.Kube.CoordinationV1().Leases(c.Namespace).Get(ctx, ControllerLeaseName, metav1.GetOptions{}); err == nil && l.Spec.HolderIdentity != nil {
		s.Holder = *l.Spec.HolderIdentity
	}
	return s, nil
}

func podReady(p *corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podState is what a Pod waits for, for a timeout's line.
func podState(p *corev1.Pod) string {
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return string(p.Status.Phase) + ", " + w.Reason
		}
	}
	if p.Spec.NodeName == "" {
		return string(p.Status.Phase) + ", not scheduled"
	}
	return string(p.Status.Phase) + ", not Ready"
}

// PodCannotRunError is a controller Pod that will not run without the
// admin: its line says why and what to do.
type PodCannotRunError struct{ Line string }

func (e *PodCannotRunError) Error() string { return e.Line }

// podCannotRun says in one line why a controller Pod will not run without
// the admin, nil while it may still.
func podCannotRun(p *corev1.Pod, ns string) error {
	if line := cannotRunLine(p, ns); line != "" {
		return &PodCannotRunError{Line: line}
	}
	return nil
}

func cannotRunLine(p *corev1.Pod, ns string) string {
	s, ok := podStuckOf(p)
	switch {
	case !ok:
		return ""
	case s.unschedulable:
		return fmt.Sprintf("the controller's Pod %s cannot be scheduled (%s): a Ready Node must fit it; kubectl -n %s describe pod %s", p.Name, s.message, ns, p.Name)
	case s.image:
		return fmt.Sprintf("the controller's image %s is not on Node %s and cannot be pulled (%s: %s): load it into the Node's container runtime (ctr -n k8s.io images import), or install with --image set to one the Node can pull",
			s.status.Image, p.Spec.NodeName, s.reason, s.message)
	}
	last := ""
	if t := s.status.LastTerminationState.Terminated; t != nil {
		last = fmt.Sprintf(", last exit code %d", t.ExitCode)
	}
	return fmt.Sprintf("the controller's container in Pod %s does not run (%s%s): kubectl -n %s logs %s", p.Name, s.reason, last, ns, p.Name)
}

// podStuck is why a Pod will not run without someone: unschedulable, its
// image neither on the Node nor pullable, or (else) its container failing
// to start or crash-looping.
type podStuck struct {
	unschedulable, image bool
	reason, message      string // the condition's or the waiting container's, one line
	status               corev1.ContainerStatus
}

// podStuckOf reads p's status for a podStuck; false while it may still run.
func podStuckOf(p *corev1.Pod) (podStuck, bool) {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
			return podStuck{unschedulable: true, reason: cond.Reason, message: firstLine(cond.Message)}, true
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		w := cs.State.Waiting
		if w == nil {
			continue
		}
		switch w.Reason {
		case "ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName":
			return podStuck{image: true, reason: w.Reason, message: firstLine(w.Message), status: cs}, true
		case "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
			return podStuck{reason: w.Reason, message: firstLine(w.Message), status: cs}, true
		}
	}
	return podStuck{}, false
}

// firstLine keeps a kubelet message to one short line.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

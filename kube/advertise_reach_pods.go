package kube

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The advertised API server seen from a cluster's Pods: Liqo's components
// on the consumer (crd-replicator, virtual kubelet, the ForeignCluster's
// API-server check) use the kubeconfig Secret from there, so an address
// the admin's laptop reaches proves nothing for them. A short-lived Pod of
// the controller's image (its check-reach mode) dials it, without a
// service-account token, and reports in its termination message.

// ReachCheckMode is the controller's first argument that makes it dial an
// address once and report (cmd/liqo-auth-controller).
const ReachCheckMode = "check-reach"

// ReachCheckSelector finds the check's Pods.
const ReachCheckSelector = "app.kubernetes.io/name=liqo-auth-reach-check"

// reachCheckTimeout bounds a check: the Pod's start (image on the Node)
// and one dial (advertisedProbeTimeout).
const reachCheckTimeout = 40 * time.Second

// ReachCheckReport is what the check's container writes in its
// termination message, as JSON.
type ReachCheckReport struct {
	Reachable bool   `json:"reachable"`
	Class     string `json:"class,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ReachCheckArgs is the command line of the check's container for
// apiServer, ca (nil: the system roots) and proxyURL ("": direct).
func ReachCheckArgs(apiServer string, ca []byte, proxyURL string) []string {
	args := []string{ReachCheckMode, "--api-server=" + apiServer}
	if len(ca) > 0 {
		args = append(args, "--ca="+base64.StdEncoding.EncodeToString(ca))
	}
	if proxyURL != "" {
		args = append(args, "--proxy-url="+proxyURL)
	}
	return args
}

// ReachCheck dials apiServer as CheckAdvertisedAPIServer does and says
// what it saw: the check's container runs it.
func ReachCheck(ctx context.Context, apiServer string, ca []byte, proxyURL string) ReachCheckReport {
	err := CheckAdvertisedAPIServer(ctx, apiServer, ca, proxyURL)
	if err == nil {
		return ReachCheckReport{Reachable: true}
	}
	r := ReachCheckReport{Class: string(FailureOther), Error: err.Error()}
	var reach *ReachError
	if errors.As(err, &reach) {
		r.Class, r.Error = string(reach.Class), RootCause(reach.Err)
	}
	return r
}

// PodReach is what CheckReachFromPods found.
type PodReach struct {
	// Checked: a Pod ran the check; else Why says why none could (no
	// Node, no Ready Node, the image, RBAC, a timeout).
	Checked bool
	// NoNode: the cluster has no Node at all (a bare control plane): there
	// are no Pods whose view could differ.
	NoNode    bool
	Reachable bool
	// Why is the failure seen from the Pod, or why there was no check.
	Why string
	// Pod and Node are where the check ran.
	Pod, Node string
}

// CheckReachFromPods runs the check in a short-lived Pod of image in the
// cluster's Liqo namespace, waits (watching) for it to end, deletes it and
// reports. Nothing else is written. Problems that leave the answer unknown
// are a PodReach with Checked false; err is only ctx's.
func (c *Cluster) CheckReachFromPods(ctx context.Context, image, apiServer string, ca []byte, proxyURL string) (PodReach, error) {
	all, ready, listed, err := c.ReadyNodes(ctx)
	switch {
	case ctx.Err() != nil:
		return PodReach{}, ctx.Err()
	case err != nil:
		return PodReach{Why: "its Nodes cannot be listed: " + RootCause(err)}, nil
	case listed && all == 0:
		return PodReach{NoNode: true, Why: "it has no Node"}, nil
	case listed && ready == 0:
		return PodReach{Why: fmt.Sprintf("none of its %d Nodes is Ready", all)}, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, reachCheckTimeout)
	defer cancel()
	if err := c.waitDefaultServiceAccount(ctx); err != nil {
		return PodReach{Why: err.Error()}, nil
	}
	pods := c.Kube.CoreV1().Pods(c.Namespace)
	created, err := pods.Create(ctx, reachCheckPod(c.Namespace, image, ReachCheckArgs(apiServer, ca, proxyURL)), metav1.CreateOptions{})
	switch {
	case apierrors.IsForbidden(err):
		return PodReach{Why: fmt.Sprintf("this kubeconfig may not create Pods in namespace %s", c.Namespace)}, nil
	case err != nil:
		return PodReach{Why: "its check Pod was not created: " + RootCause(err)}, nil
	}
	defer func() {
		// Gone at once: it has ended, or is not worth waiting for.
		_ = pods.Delete(context.WithoutCancel(ctx), created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	}()
	r := PodReach{Pod: c.Namespace + "/" + created.Name}
	var blocked, seen string
	done, err := WaitFor(ctx, ListWatch(pods.List, pods.Watch, ByName(created.Name)), "the reach check's Pod to end",
		func(p *corev1.Pod) (bool, error) {
			r.Node, seen = p.Spec.NodeName, podState(p)
			if blocked = reachPodBlocked(p); blocked != "" {
				return true, nil
			}
			return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed, nil
		})
	switch {
	case err != nil && parent.Err() == nil && ctx.Err() != nil:
		r.Why = fmt.Sprintf("its check Pod %s did not end within %s (%s)", r.Pod, reachCheckTimeout, seen)
		return r, nil
	case err != nil:
		return r, err
	case blocked != "":
		r.Why = blocked
		return r, nil
	}
	var report ReachCheckReport
	statuses := done.Status.ContainerStatuses
	if len(statuses) != 1 || statuses[0].State.Terminated == nil ||
		json.Unmarshal([]byte(statuses[0].State.Terminated.Message), &report) != nil {
		r.Why = fmt.Sprintf("its check Pod %s ended without a report (is %s the controller's image?)", r.Pod, image)
		return r, nil
	}
	r.Checked, r.Reachable = true, report.Reachable
	if !report.Reachable {
		r.Why = report.Error
		if !strings.Contains(r.Why, report.Class) {
			r.Why = report.Class + ": " + r.Why
		}
	}
	return r, nil
}

// waitDefaultServiceAccount waits for the namespace's default
// ServiceAccount, without which no Pod is admitted (a namespace just made
// gets it from the controller-manager a moment later). One that may not be
// read is assumed there.
func (c *Cluster) waitDefaultServiceAccount(ctx context.Context) error {
	sas := c.Kube.CoreV1().ServiceAccounts(c.Namespace)
	_, err := sas.Get(ctx, "default", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		return nil
	}
	_, err = WaitFor(ctx, ListWatch(sas.List, sas.Watch, ByName("default")), "the default ServiceAccount",
		func(*corev1.ServiceAccount) (bool, error) { return true, nil })
	if err != nil {
		return fmt.Errorf("namespace %s has no default ServiceAccount, which Pods need: %s", c.Namespace, RootCause(err))
	}
	return nil
}

// reachCheckPod is the check's Pod: restricted (Pod Security's strictest
// profile), no service-account token, small, deleted by the caller.
func reachCheckPod(ns, image string, args []string) *corev1.Pod {
	requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")}
	limits := corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "liqo-auth-reach-check-", Namespace: ns,
			Labels: map[string]string{"app.kubernetes.io/name": "liqo-auth-reach-check", ManagedByLabel: ManagedByValue}},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  ptr.To(false),
			EnableServiceLinks:            ptr.To(false),
			ActiveDeadlineSeconds:         ptr.To(int64(reachCheckTimeout / time.Second)),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "check-reach", Image: image, ImagePullPolicy: corev1.PullIfNotPresent, Args: args,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				Resources:                corev1.ResourceRequirements{Requests: requests, Limits: limits},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
		},
	}
}

// reachPodBlocked says why the check's Pod will not run by itself, "" while
// it may.
func reachPodBlocked(p *corev1.Pod) string {
	s, ok := podStuckOf(p)
	switch {
	case !ok:
		return ""
	case s.unschedulable:
		return fmt.Sprintf("its check Pod cannot be scheduled (%s)", s.message)
	case s.image:
		return fmt.Sprintf("the image %s is not on Node %s and cannot be pulled (%s): load it there or install controller with an image the Node can pull",
			s.status.Image, p.Spec.NodeName, s.reason)
	}
	return fmt.Sprintf("its check Pod's container does not start (%s: %s)", s.reason, s.message)
}

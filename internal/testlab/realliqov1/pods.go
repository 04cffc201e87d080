package realliqov1

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Liqo's chart names (liqo-controller-manager-*.yaml,
// liqo-crd-replicator-*.yaml, release "liqo"): the Deployments and their
// ServiceAccounts.
const (
	ControllerManagerName = "liqo-controller-manager"
	ReplicatorName        = "liqo-crd-replicator"
	remoteControlPlane    = "liqo-remote-controlplane"
)

// ImageRef is the image the lab's Nodes run binary ("liqo-peer" or
// "crd-replicator") of release from.
func ImageRef(binary, release string) string { return labimage.LabRef(binary, release) }

// LoadImages wraps release's ("" = LiqoVersion) liqo-peer and
// crd-replicator into images (once per process) and loads them into each
// Node.
func LoadImages(ctx context.Context, release string, nodes ...*lab.Node) error {
	b, err := find(release)
	if err != nil {
		return err
	}
	for _, bin := range []string{"liqo-peer", "crd-replicator"} {
		if err := labimage.LoadWrapped(ctx, filepath.Join(b.dir, bin), ImageRef(bin, b.version), nodes...); err != nil {
			return err
		}
	}
	return nil
}

// PodOptions say what RunAsPods runs; InstallRelease of the same release
// and namespace comes first.
type PodOptions struct {
	// Release is one of Releases; "" = LiqoVersion.
	Release string
	// Namespace is the Liqo namespace; "" = "liqo".
	Namespace string
	// Provider and Consumer turn on each side's reconcilers of liqo-peer.
	Provider, Consumer bool
	// Args are more liqo-controller-manager flags.
	Args []string
}

// RunAsPods runs release's liqo-peer and crd-replicator as Liqo's chart
// runs liqo-controller-manager and crd-replicator: Deployments of one
// replica in the Liqo namespace, the cluster ID from the chart's ConfigMap,
// the chart's security context, each under its ServiceAccount bound to
// Liqo's own ClusterRoles and Roles (the chart's bindings, less those of
// ClusterRoles the authentication module never grants). It returns once
// both Pods are Ready (no probes: their containers run), or with why a
// container stopped, failing the test. When the test ends it deletes the
// Deployments and waits for their Pods to go: a Pod still watching another
// lab cluster holds up that API server's stop. Load the images first
// (LoadImages).
func RunAsPods(t testing.TB, ctx context.Context, cfg *rest.Config, o PodOptions) {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := o.Namespace
	if ns == "" {
		ns = "liqo"
	}
	t.Cleanup(func() {
		if err := stopPods(kc, ns); err != nil {
			t.Errorf("stopping Liqo's Pods: %v", err)
		}
	})
	if err := runAsPods(ctx, kc, ns, o); err != nil {
		t.Fatal(err)
	}
}

func runAsPods(ctx context.Context, kc kubernetes.Interface, ns string, o PodOptions) error {
	b, err := find(o.Release)
	if err != nil {
		return err
	}
	if err := installPodRBAC(ctx, kc, b, ns); err != nil {
		return err
	}
	peerArgs := append([]string{"--cluster-id=$(CLUSTER_ID)", "--liqo-namespace=" + ns,
		"--provider=" + strconv.FormatBool(o.Provider), "--consumer=" + strconv.FormatBool(o.Consumer)}, o.Args...)
	deployments := []*appsv1.Deployment{
		deployment(b, ns, ControllerManagerName, "controller-manager", "controller-manager", "liqo-peer", peerArgs),
		deployment(b, ns, ReplicatorName, "crd-replicator", "dispatcher", "crd-replicator", []string{"--cluster-id=$(CLUSTER_ID)"}),
	}
	for _, d := range deployments {
		if _, err := kc.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating Deployment %s/%s: %w", ns, d.Name, err)
		}
	}
	for _, d := range deployments {
		if err := waitPodReady(ctx, kc, ns, d.Spec.Selector.MatchLabels); err != nil {
			return fmt.Errorf("%s (Liqo %s): %w", d.Name, b.version, err)
		}
	}
	return nil
}

// podStopTimeout bounds stopping Liqo's Pods (their binaries stop on
// SIGTERM at once).
const podStopTimeout = time.Minute

// stopPods deletes the Deployments of RunAsPods and waits until no Pod of
// theirs is left.
func stopPods(kc kubernetes.Interface, ns string) error {
	ctx, cancel := context.WithTimeout(context.Background(), podStopTimeout)
	defer cancel()
	for _, name := range []string{ControllerManagerName, ReplicatorName} {
		err := kc.AppsV1().Deployments(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	pods := kc.CoreV1().Pods(ns)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/part-of=liqo"})
	if err != nil {
		return err
	}
	for _, p := range list.Items {
		if err := kube.WaitForDeletion(ctx, kube.ListWatch(pods.List, pods.Watch, kube.ByName(p.Name)), &corev1.Pod{}, "Pod "+p.Name+" gone"); err != nil {
			return err
		}
	}
	return nil
}

// installPodRBAC makes the ServiceAccounts and what the chart binds to
// them: each its own ClusterRole (and the replicator its Role of the Liqo
// namespace), both the remote control plane's, and the controller-manager
// the ClusterRoles its Tenant controller binds for consumers.
func installPodRBAC(ctx context.Context, kc kubernetes.Interface, b built, ns string) error {
	for _, sub := range []string{"clusterroles", "roles"} {
		manifests, err := b.ReadManifests(filepath.Join(b.dir, "pods", sub))
		if err != nil {
			return err
		}
		for name, body := range manifests {
			if sub == "clusterroles" {
				_, err = kc.RbacV1().ClusterRoles().Patch(ctx, name, types.ApplyPatchType, body, b.ApplyOptions())
			} else {
				_, err = kc.RbacV1().Roles(ns).Patch(ctx, name, types.ApplyPatchType, body, b.ApplyOptions())
			}
			if err != nil {
				return fmt.Errorf("applying Liqo's %s %s: %w", sub, name, err)
			}
		}
	}
	manager := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: ControllerManagerName, Namespace: ns}
	replicator := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: ReplicatorName, Namespace: ns}
	clusterBindings := []*rbacv1.ClusterRoleBinding{
		clusterBinding(ControllerManagerName, ControllerManagerName, manager),
		clusterBinding(ControllerManagerName+"-grant-virtual-kubelet-remote-clusterwide", "liqo-virtual-kubelet-remote-clusterwide", manager),
		clusterBinding(ReplicatorName, ReplicatorName, replicator),
		clusterBinding(remoteControlPlane, remoteControlPlane, manager, replicator),
	}
	for _, sa := range []string{ControllerManagerName, ReplicatorName} {
		if err := create(kc.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})); err != nil {
			return err
		}
	}
	for _, crb := range clusterBindings {
		if err := create(kc.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{})); err != nil {
			return err
		}
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ReplicatorName},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ReplicatorName},
		Subjects: []rbacv1.Subject{replicator}}
	return create(kc.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}))
}

func clusterBinding(name, role string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: subjects}
}

// create passes what a Create returned, an existing object being no error.
func create[T any](_ T, err error) error {
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// deployment is the chart's Deployment of one component, running binary of
// the wrapped image with args.
func deployment(b built, ns, name, component, module, binary string, args []string) *appsv1.Deployment {
	l := liqoproc.ChartLabels(b.version, component, module)
	selector := map[string]string{"app.kubernetes.io/name": component, "app.kubernetes.io/instance": "liqo-" + component}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: l},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{
					ServiceAccountName: name,
					// The chart's liqo.podSecurityContext.
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
						RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](1000), FSGroup: ptr.To[int64](1000)},
					Containers: []corev1.Container{{
						Name: component, Image: ImageRef(binary, b.version), ImagePullPolicy: corev1.PullNever,
						Command: []string{"/" + binary}, Args: args,
						Env: []corev1.EnvVar{{Name: "CLUSTER_ID", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: ClusterIDConfigMapName}, Key: clusterIDKey}}}},
						SecurityContext:          &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
					}},
				},
			},
		},
	}
}

// waitPodReady waits for a Pod of the selector to be Ready, failing as
// soon as one of its containers stopped or cannot start.
func waitPodReady(ctx context.Context, kc kubernetes.Interface, ns string, selector map[string]string) error {
	pods := kc.CoreV1().Pods(ns)
	sel := labels.SelectorFromSet(selector).String()
	_, err := kube.WaitFor(ctx, kube.ListWatch(pods.List, pods.Watch, func(o *metav1.ListOptions) { o.LabelSelector = sel }),
		"a Ready Pod of "+sel, func(p *corev1.Pod) (bool, error) {
			for _, cs := range p.Status.ContainerStatuses {
				if t := cs.State.Terminated; t != nil {
					return false, fmt.Errorf("container %s of Pod %s stopped (%s, exit %d): %s", cs.Name, p.Name, t.Reason, t.ExitCode, t.Message)
				}
				if w := cs.State.Waiting; w != nil && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
					return false, fmt.Errorf("container %s of Pod %s cannot start (%s): %s", cs.Name, p.Name, w.Reason, w.Message)
				}
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
	return err
}

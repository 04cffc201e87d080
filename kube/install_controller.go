package kube

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/assets"
)

// ControllerImage is the default image of the in-cluster controller.
const ControllerImage = "ghcr.io/liqo-auth-tui/liqo-auth-controller:latest"

// manifest is one object of the embedded kustomization.
type manifest struct {
	path string
	obj  *unstructured.Unstructured
}

// controllerManifests decodes the embedded kustomization (assets/deploy),
// moved to namespace and with the Deployment's image replaced when image is
// not empty.
func controllerManifests(image, namespace string) ([]manifest, error) {
	paths, docs, err := assets.DeployManifests()
	if err != nil {
		return nil, err
	}
	var out []manifest
	for i, doc := range docs {
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(doc)))
		for {
			part, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", paths[i], err)
			}
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(part, &obj.Object); err != nil {
				return nil, fmt.Errorf("%s: %w", paths[i], err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			relocate(obj, namespace)
			if obj.GetKind() == "Deployment" && image != "" {
				containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
				for _, c := range containers {
					c.(map[string]any)["image"] = image
				}
				if err := unstructured.SetNestedSlice(obj.Object, containers, "spec", "template", "spec", "containers"); err != nil {
					return nil, err
				}
			}
			out = append(out, manifest{path: paths[i], obj: obj})
		}
	}
	return out, nil
}

// relocate moves an object of the kustomization from the "liqo" namespace
// it names to the cluster's Liqo namespace.
func relocate(obj *unstructured.Unstructured, namespace string) {
	if namespace == DefaultLiqoNamespace {
		return
	}
	if obj.GetKind() == "Namespace" {
		obj.SetName(namespace)
	} else if obj.GetNamespace() != "" {
		obj.SetNamespace(namespace)
	}
	if subjects, ok, _ := unstructured.NestedSlice(obj.Object, "subjects"); ok {
		for _, s := range subjects {
			if m := s.(map[string]any); m["namespace"] != nil {
				m["namespace"] = namespace
			}
		}
		_ = unstructured.SetNestedSlice(obj.Object, subjects, "subjects")
	}
	if obj.GetKind() == "Deployment" {
		containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			args, _ := c.(map[string]any)["args"].([]any)
			for i, a := range args {
				if strings.HasPrefix(a.(string), "--liqo-namespace=") {
					args[i] = "--liqo-namespace=" + namespace
				}
			}
		}
		_ = unstructured.SetNestedSlice(obj.Object, containers, "spec", "template", "spec", "containers")
	}
}

// resourceFor resolves the dynamic client of an object.
func (c *Cluster) resourceFor(mapper *restmapper.DeferredDiscoveryRESTMapper, dyn dynamic.Interface, obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		mapper.Reset() // a CRD applied a moment ago
		if m, err = mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return nil, fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
		}
	}
	if m.Scope.Name() == "namespace" {
		return dyn.Resource(m.Resource).Namespace(obj.GetNamespace()), nil
	}
	return dyn.Resource(m.Resource), nil
}

// controllerObjects decodes the manifests and prepares the clients to
// write them.
func (c *Cluster) controllerObjects(image string) ([]manifest, dynamic.Interface, *restmapper.DeferredDiscoveryRESTMapper, error) {
	ms, err := controllerManifests(image, c.Namespace)
	if err != nil {
		return nil, nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, nil, nil, err
	}
	return ms, dyn, restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Kube.Discovery())), nil
}

// InstallController applies the embedded controller manifests with
// server-side apply, in kustomization order. image "" keeps the default.
func (c *Cluster) InstallController(ctx context.Context, image string) ([]Change, error) {
	ms, dyn, mapper, err := c.controllerObjects(image)
	if err != nil {
		return nil, err
	}
	var changes []Change
	force := true
	for _, m := range ms {
		res, err := c.resourceFor(mapper, dyn, m.obj)
		if err != nil {
			return changes, err
		}
		ch := Change{Object: m.obj.GetKind() + " " + m.obj.GetName()}
		before, err := res.Get(ctx, m.obj.GetName(), metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return changes, fmt.Errorf("reading %s: %w", ch.Object, err)
		}
		body, err := m.obj.MarshalJSON()
		if err != nil {
			return changes, err
		}
		after, err := res.Patch(ctx, m.obj.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
		if err != nil {
			return changes, fmt.Errorf("applying %s (from %s): %w", ch.Object, m.path, err)
		}
		switch {
		case before == nil:
			ch.Action = Created
		case before.GetResourceVersion() == after.GetResourceVersion():
			ch.Action = Unchanged
		default:
			ch.Action = Updated
		}
		changes = append(changes, ch)
		if m.obj.GetKind() == "CustomResourceDefinition" {
			if _, err := c.waitCRDEstablished(ctx, m.obj.GetName()); err != nil {
				return changes, err
			}
		}
	}
	return changes, nil
}

// UninstallController removes the controller (its Deployment, ServiceAccount
// and RBAC), waits for its Pods to go and deletes its Lease. CRDs, the
// Liqo namespace (cluster ID, keys) and the consumer ClusterRoles stay:
// removing them would destroy existing peerings.
func (c *Cluster) UninstallController(ctx context.Context) ([]Change, error) {
	changes, err := c.removeController(ctx, func(string) bool { return true })
	if err != nil {
		return changes, err
	}
	pods := c.Kube.CoreV1().Pods(c.Namespace)
	if _, err := pods.List(ctx, metav1.ListOptions{Limit: 1}); apierrors.IsForbidden(err) {
		return changes, nil // may not see Pods: the Lease is left to expire
	}
	if err := WaitForDeletion(ctx, ListWatch(pods.List, pods.Watch, BySelector(ControllerPodSelector)), &corev1.Pod{}, "the controller's Pods to go"); err != nil {
		return changes, err
	}
	ch := Change{Object: "Lease " + ControllerLeaseName, Action: Deleted}
	switch err := c.Kube.CoordinationV1().Leases(c.Namespace).Delete(ctx, ControllerLeaseName, metav1.DeleteOptions{}); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return changes, fmt.Errorf("deleting %s: %w", ch.Object, err)
	default:
		changes = append(changes, ch)
	}
	return changes, nil
}

// UndoControllerInstall undoes an install whose Pods cannot run: with the
// image that was installed before (previous), it installs that one again;
// without (a first install), it removes the controller objects the install
// created (CRDs stay, as init applies them too).
func (c *Cluster) UndoControllerInstall(ctx context.Context, installed []Change, previous string) ([]Change, error) {
	if previous != "" {
		return c.InstallController(ctx, previous)
	}
	created := map[string]bool{}
	for _, ch := range installed {
		created[ch.Object] = ch.Action == Created
	}
	return c.removeController(ctx, func(object string) bool { return created[object] })
}

// InstalledControllerImage is the image of the controller's Deployment, ""
// when none is installed.
func (c *Cluster) InstalledControllerImage(ctx context.Context) (string, error) {
	d, err := c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, ControllerLeaseName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil || len(d.Spec.Template.Spec.Containers) == 0 {
		return "", err
	}
	return d.Spec.Template.Spec.Containers[0].Image, nil
}

// removeController deletes the controller's objects that remove says, in
// reverse kustomization order.
func (c *Cluster) removeController(ctx context.Context, remove func(object string) bool) ([]Change, error) {
	ms, dyn, mapper, err := c.controllerObjects("")
	if err != nil {
		return nil, err
	}
	var changes []Change
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		object := m.obj.GetKind() + " " + m.obj.GetName()
		if !strings.HasPrefix(m.path, "controller/") || !remove(object) {
			continue
		}
		res, err := c.resourceFor(mapper, dyn, m.obj)
		if err != nil {
			return changes, err
		}
		ch := Change{Object: object, Action: Deleted}
		err = res.Delete(ctx, m.obj.GetName(), metav1.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
			ch.Action = Unchanged
		case err != nil:
			return changes, fmt.Errorf("deleting %s: %w", ch.Object, err)
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

package kube

import (
	"context"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// The plain reads, watches and deletes of core objects that flows needs,
// so that flows calls no clientset itself.

// SecretsListWatch is a list/watch of c's Secrets in namespace, narrowed by
// tweak (ByName, BySelector): what a wait on a Secret follows.
func (c *Cluster) SecretsListWatch(namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	secrets := c.Kube.CoreV1().Secrets(namespace)
	return ListWatch(secrets.List, secrets.Watch, tweak)
}

// SecretsLabelled lists c's Secrets in namespace ("" = all) that match the
// label selector.
func (c *Cluster) SecretsLabelled(ctx context.Context, namespace, selector string) ([]corev1.Secret, error) {
	list, err := c.Kube.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// NamespacesListWatch is a list/watch of c's namespaces narrowed by tweak.
func (c *Cluster) NamespacesListWatch(tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	namespaces := c.Kube.CoreV1().Namespaces()
	return ListWatch(namespaces.List, namespaces.Watch, tweak)
}

// NamespaceNamed reads one of c's namespaces.
func (c *Cluster) NamespaceNamed(ctx context.Context, name string) (*corev1.Namespace, error) {
	return c.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
}

// Namespaces lists c's namespaces.
func (c *Cluster) Namespaces(ctx context.Context) ([]corev1.Namespace, error) {
	list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// Secret reads one of c's Secrets.
func (c *Cluster) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	return c.Kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
}

// DeleteSecret deletes one of c's Secrets (a NotFound error when it is gone).
func (c *Cluster) DeleteSecret(ctx context.Context, namespace, name string) error {
	return c.Kube.CoreV1().Secrets(namespace).Delete(ctx, name, metav1.DeleteOptions{})
}

// ControllerLease reads the in-cluster controller's Lease.
func (c *Cluster) ControllerLease(ctx context.Context) (*coordinationv1.Lease, error) {
	return c.Lease(ctx, ControllerLeaseName)
}

// DeleteNamespace deletes namespace name and waits, watching, until it is
// gone; stuck is the error's text when the wait times out (what keeps a
// namespace Terminating). A namespace already gone is no error.
func (c *Cluster) DeleteNamespace(ctx context.Context, name, stuck string) error {
	if err := c.Kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !IsNotFound(err) {
		return err
	}
	return WaitForDeletion(ctx, c.NamespacesListWatch(ByName(name)), &corev1.Namespace{}, stuck)
}

// ObjectRef names an object whose Events a wait or doctor reads.
type ObjectRef struct {
	Kind, Namespace, Name string
}

// EventSelector is the field selector of the Events about r (any object of
// that kind and name in its namespace).
func (r ObjectRef) EventSelector() string {
	return fields.Set{"involvedObject.kind": r.Kind, "involvedObject.name": r.Name}.String()
}

// Events lists the Events of namespace that match fieldSelector.
func (c *Cluster) Events(ctx context.Context, namespace, fieldSelector string) (*corev1.EventList, error) {
	return c.Kube.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: fieldSelector})
}

// EventTime is when an Event last happened, whichever of its times is set.
func EventTime(e *corev1.Event) time.Time {
	for _, t := range []time.Time{e.LastTimestamp.Time, e.EventTime.Time, e.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return e.CreationTimestamp.Time
}

// EventsListWatch lists and watches the Events of namespace that match
// fieldSelector.
func (c *Cluster) EventsListWatch(namespace, fieldSelector string) cache.ListerWatcher {
	events := c.Kube.CoreV1().Events(namespace)
	return ListWatch(events.List, events.Watch, func(o *metav1.ListOptions) { o.FieldSelector = fieldSelector })
}

// LatestWarning is the latest Warning Event about r, of one of reasons
// (none: any); nil when there is none or the Events cannot be read.
func (c *Cluster) LatestWarning(ctx context.Context, r ObjectRef, reasons ...string) *corev1.Event {
	list, err := c.Events(ctx, r.Namespace, r.EventSelector())
	if err != nil {
		return nil
	}
	var last *corev1.Event
	for i := range list.Items {
		e := &list.Items[i]
		if e.Type != corev1.EventTypeWarning || len(reasons) > 0 && !slices.Contains(reasons, e.Reason) {
			continue
		}
		if last == nil || EventTime(e).After(EventTime(last)) {
			last = e
		}
	}
	return last
}

// WatchEvents watches the Events of namespace that match fieldSelector,
// from resourceVersion on.
func (c *Cluster) WatchEvents(ctx context.Context, namespace, fieldSelector, resourceVersion string) (watch.Interface, error) {
	return c.Kube.CoreV1().Events(namespace).Watch(ctx, metav1.ListOptions{FieldSelector: fieldSelector, ResourceVersion: resourceVersion})
}

// Deployment reads a Deployment of c's namespace.
func (c *Cluster) Deployment(ctx context.Context, name string) (*appsv1.Deployment, error) {
	return c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, name, metav1.GetOptions{})
}

// RootCA is the cluster CA a Pod's service account trusts, as the
// kube-root-ca.crt ConfigMap of c's namespace publishes it; nil when it
// cannot be read.
func (c *Cluster) RootCA(ctx context.Context) []byte {
	cm, err := c.Kube.CoreV1().ConfigMaps(c.Namespace).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
	if err != nil || cm.Data["ca.crt"] == "" {
		return nil
	}
	return []byte(cm.Data["ca.crt"])
}

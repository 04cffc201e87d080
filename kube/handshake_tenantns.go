package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// IsNotFound reports a Kubernetes NotFound error.
func IsNotFound(err error) bool { return apierrors.IsNotFound(err) }

func tenantNamespaceSelector(remoteClusterID string) string {
	return labels.Set{RemoteClusterIDLabel: remoteClusterID}.String() + "," + TenantNamespaceLabel
}

// TenantNamespace finds the tenant namespace of a remote cluster by labels
// (§2). When listing namespaces is forbidden it falls back, like Liqo, to the
// default name and checks its labels. NotFound is returned as an API error.
func (c *Cluster) TenantNamespace(ctx context.Context, remoteClusterID string) (*corev1.Namespace, error) {
	return c.tenantNamespace(ctx, remoteClusterID, "")
}

// tenantNamespace is TenantNamespace, reading the API server's cache as it
// is with resourceVersion "0" (else "", a consistent read).
func (c *Cluster) tenantNamespace(ctx context.Context, remoteClusterID, resourceVersion string) (*corev1.Namespace, error) {
	list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: tenantNamespaceSelector(remoteClusterID), ResourceVersion: resourceVersion})
	switch {
	case apierrors.IsForbidden(err):
		return c.tenantNamespaceByName(ctx, remoteClusterID)
	case err != nil:
		return nil, fmt.Errorf("looking up the tenant namespace of cluster %s: %w", remoteClusterID, err)
	case len(list.Items) == 0:
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), TenantNamespaceName(remoteClusterID))
	case len(list.Items) > 1:
		return nil, fmt.Errorf("multiple tenant namespaces found for clusterid %s", remoteClusterID)
	}
	return &list.Items[0], nil
}

func (c *Cluster) tenantNamespaceByName(ctx context.Context, remoteClusterID string) (*corev1.Namespace, error) {
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, TenantNamespaceName(remoteClusterID), metav1.GetOptions{})
	if err != nil || ns.Labels[RemoteClusterIDLabel] != remoteClusterID || ns.Labels[TenantNamespaceLabel] == "" {
		return nil, fmt.Errorf("namespace access is forbidden to current user and no tenant namespace with default name has been created in advance")
	}
	return ns, nil
}

// EnsureTenantNamespace returns the tenant namespace of a remote cluster,
// creating it with Liqo's name and labels when there is none. created tells
// whether it was created now.
func (c *Cluster) EnsureTenantNamespace(ctx context.Context, remoteClusterID string) (ns *corev1.Namespace, created bool, err error) {
	// From the API server's cache: a consistent list waits until that cache
	// has caught up with the latest write of any kind (up to 100 ms, the
	// API server's progress-request period). A namespace created a moment
	// ago that the cache misses is found by the create (AlreadyExists).
	ns, err = c.tenantNamespace(ctx, remoteClusterID, "0")
	if err == nil || !IsNotFound(err) {
		return ns, false, err
	}
	ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   TenantNamespaceName(remoteClusterID),
		Labels: TenantNamespaceLabels(remoteClusterID),
	}}
	ns, err = c.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Someone created it between our lookup and create, or a namespace
		// with that name exists without Liqo's labels.
		return c.AdoptTenantNamespace(ctx, remoteClusterID)
	}
	if err != nil {
		return nil, false, fmt.Errorf("unable to create tenant namespace: %w", err)
	}
	return ns, true, nil
}

// AdoptTenantNamespace takes the namespace named for remoteClusterID if it
// already carries the tenant labels (a create lost a race), and refuses it
// otherwise. Liqo 0.x's consumer (kube/liqo0x) uses it too.
func (c *Cluster) AdoptTenantNamespace(ctx context.Context, remoteClusterID string) (*corev1.Namespace, bool, error) {
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, TenantNamespaceName(remoteClusterID), metav1.GetOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("unable to create tenant namespace: %w", err)
	}
	if ns.Labels[RemoteClusterIDLabel] == remoteClusterID && ns.Labels[TenantNamespaceLabel] != "" {
		return ns, false, nil
	}
	return nil, false, fmt.Errorf("unable to create tenant namespace: namespace %s exists but is not labelled as the tenant namespace of cluster %s (%s=%s, %s): label it or remove it",
		ns.Name, remoteClusterID, RemoteClusterIDLabel, remoteClusterID, TenantNamespaceLabel)
}

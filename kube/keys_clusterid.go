package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrNoClusterID means the cluster has no cluster-ID ConfigMap: neither Liqo
// nor `liqo-auth-tui init` prepared it.
var ErrNoClusterID = fmt.Errorf("no cluster ID found")

// ClusterIDConfigMap finds the cluster-ID ConfigMap by label, as Liqo does
// (§1.1): exactly one must match. It returns nil, ErrNoClusterID when none does.
func (c *Cluster) ClusterIDConfigMap(ctx context.Context) (*corev1.ConfigMap, error) {
	list, err := c.Kube.CoreV1().ConfigMaps(c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: ClusterIDSelector})
	if err != nil {
		return nil, fmt.Errorf("looking up the cluster ID in namespace %s: %w", c.Namespace, err)
	}
	switch len(list.Items) {
	case 0:
		return nil, fmt.Errorf("%w in namespace %s (no ConfigMap labelled %s): run `liqo-auth-tui init` on this cluster or install Liqo",
			ErrNoClusterID, c.Namespace, ClusterIDSelector)
	case 1:
		return &list.Items[0], nil
	default:
		return nil, fmt.Errorf("multiple resources of type {configmaps} found for label selector %s in namespace %s: keep only one", ClusterIDSelector, c.Namespace)
	}
}

// ClusterID reads the cluster ID (key CLUSTER_ID of the ConfigMap).
func (c *Cluster) ClusterID(ctx context.Context) (string, error) {
	cm, err := c.ClusterIDConfigMap(ctx)
	if err != nil {
		return "", err
	}
	id, ok := cm.Data[ClusterIDKey]
	if !ok || id == "" {
		return "", fmt.Errorf("unable to get cluster ID: field {%s} not found in configmap {%s/%s}", ClusterIDKey, cm.Namespace, cm.Name)
	}
	return id, nil
}

// IsNotFoundOrNoID tells whether err says an object or the cluster ID is missing.
func IsNotFoundOrNoID(err error) bool {
	return apierrors.IsNotFound(err) || isErr(err, ErrNoClusterID)
}

package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// tenantNamespaces finds tenant namespaces by labels (§2), from the
// informer's cache when it holds exactly one, else live. A live, consistent
// list of namespaces waits for the API server's cache to catch up with the
// latest write anywhere (50–100ms): too slow for every reconcile, while a
// tenant namespace, once there, hardly ever changes.
type tenantNamespaces struct {
	c      *kube.Cluster
	lister corelisters.NamespaceLister // namespaces labelled liqo.io/tenant-namespace
	index  cache.Indexer               // the same, indexed byRemoteID; nil: scan the lister
}

func (n tenantNamespaces) cached(remoteClusterID string) *corev1.Namespace {
	if n.index != nil {
		list, err := n.index.ByIndex(byRemoteID, remoteClusterID)
		if err != nil || len(list) != 1 {
			return nil
		}
		ns, _ := list[0].(*corev1.Namespace)
		return ns
	}
	list, err := n.lister.List(labels.SelectorFromSet(labels.Set{kube.RemoteClusterIDLabel: remoteClusterID}))
	if err != nil || len(list) != 1 {
		return nil
	}
	return list[0]
}

// get returns the tenant namespace of a remote cluster (NotFound when none).
func (n tenantNamespaces) get(ctx context.Context, remoteClusterID string) (*corev1.Namespace, error) {
	if ns := n.cached(remoteClusterID); ns != nil {
		return ns, nil
	}
	return n.c.TenantNamespace(ctx, remoteClusterID)
}

// ensure returns the tenant namespace of a remote cluster, creating it
// when there is none.
func (n tenantNamespaces) ensure(ctx context.Context, remoteClusterID string) (*corev1.Namespace, error) {
	if ns := n.cached(remoteClusterID); ns != nil {
		return ns, nil
	}
	ns, _, err := n.c.EnsureTenantNamespace(ctx, remoteClusterID)
	return ns, err
}

// placed checks that a nonce or signed-nonce Secret names its remote
// cluster and lives in that cluster's tenant namespace (§3.3, §4.3),
// emitting Liqo's Warning otherwise. ok is false when the reconcile must
// stop; err is then set when it must be retried.
func (n tenantNamespaces) placed(ctx context.Context, ev *events, s *corev1.Secret, missingReason string) (clusterID string, ok bool, err error) {
	clusterID = s.Labels[kube.RemoteClusterIDLabel]
	if clusterID == "" {
		ev.warning(ctx, s, missingReason, fmt.Sprintf("Missing label %s", kube.RemoteClusterIDLabel))
		return "", false, nil
	}
	tenantNS, err := n.get(ctx, clusterID)
	if err != nil {
		ev.warning(ctx, s, ReasonTenantNamespaceNotFound, fmt.Sprintf("Tenant namespace of cluster %s not found: %v", clusterID, err))
		return "", false, err
	}
	if tenantNS.Name != s.Namespace {
		ev.warning(ctx, s, ReasonWrongNamespace, fmt.Sprintf("Secret is not in the tenant namespace of cluster %s (%s)", clusterID, tenantNS.Name))
		return "", false, nil
	}
	return clusterID, true, nil
}

package realliqov1

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// What Liqo's Helm chart names (templates/liqo-clusterid-configmap.yaml and
// _helpers.tpl, release "liqo", the same in every release of Releases):
// this project's code must find Liqo's objects by these, so they are
// written here as Liqo writes them.
const (
	ClusterIDConfigMapName = "liqo-clusterid-configmap"
	clusterIDKey           = "CLUSTER_ID"
)

// Install is InstallRelease of the default release, LiqoVersion.
func Install(ctx context.Context, cfg *rest.Config, namespace, clusterID string) error {
	return InstallRelease(ctx, cfg, LiqoVersion, namespace, clusterID)
}

// InstallRelease makes the cluster look as the Helm chart of Liqo release
// ("" = LiqoVersion) leaves it, as far as the authentication module goes:
// all of Liqo's CRDs (its controllers' REST mapper needs every Liqo group;
// the ForeignCluster CRD is what this project's kube.Cluster.LiqoInstalled
// looks for), the Liqo namespace, the cluster-ID ConfigMap, the
// ClusterRoles the Tenant controller binds and the peering user's
// ClusterRole and Role (liqoctl generate peering-user binds them).
// The authentication-keys Secret is left to liqo-peer, which creates it as
// liqo-controller-manager does. Idempotent; a different existing cluster ID
// is an error. The CRDs and ClusterRoles are cluster-wide: installing
// another release on the same cluster replaces them with its own.
func InstallRelease(ctx context.Context, cfg *rest.Config, release, namespace, clusterID string) error {
	if err := InstallCRDs(ctx, cfg, release); err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	b, err := find(release)
	if err != nil {
		return err
	}
	roles, err := b.ReadManifests(filepath.Join(b.dir, "clusterroles"))
	if err != nil {
		return err
	}
	for name, body := range roles {
		if _, err := kc.RbacV1().ClusterRoles().Patch(ctx, name, types.ApplyPatchType, body, b.ApplyOptions()); err != nil {
			return fmt.Errorf("applying Liqo's ClusterRole %s: %w", name, err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := kc.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	// The Roles of the Liqo namespace (the peering user's).
	nsRoles, err := b.ReadManifests(filepath.Join(b.dir, "roles"))
	if err != nil {
		return err
	}
	for name, body := range nsRoles {
		if _, err := kc.RbacV1().Roles(namespace).Patch(ctx, name, types.ApplyPatchType, body, b.ApplyOptions()); err != nil {
			return fmt.Errorf("applying Liqo's Role %s: %w", name, err)
		}
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ClusterIDConfigMapName, Namespace: namespace,
			Labels: liqoproc.ChartLabels(b.version, "clusterid-configmap", "clusterid-configmap")},
		Data: map[string]string{clusterIDKey: clusterID},
	}
	_, err = kc.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		old, getErr := kc.CoreV1().ConfigMaps(namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if old.Data[clusterIDKey] != clusterID {
			return fmt.Errorf("namespace %s already holds cluster ID %q, not %q", namespace, old.Data[clusterIDKey], clusterID)
		}
		return nil
	}
	return err
}

// InstallCRDs applies the CRDs of Liqo release ("" = LiqoVersion), from
// its chart's liqo-crds subchart, and waits until the API server serves
// them all.
func InstallCRDs(ctx context.Context, cfg *rest.Config, release string) error {
	b, err := find(release)
	if err != nil {
		return err
	}
	return b.ApplyCRDs(ctx, cfg, filepath.Join(b.dir, "crds"))
}

package flows

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// peeringObjects are what an overview reads of one cluster: one list per
// kind, or an informer's store per kind.
type peeringObjects struct {
	localID string
	release kube.LiqoRelease
	// namespaces are the tenant namespaces, v1 and 0.x.
	namespaces []*corev1.Namespace
	// secrets are labelled liqo.io/remote-cluster-id (nonces, signed
	// nonces, kubeconfigs, certificate caches); liqo0xSecrets
	// discovery.liqo.io/cluster-id (0.x identities, issued certificates).
	secrets, liqo0xSecrets []*corev1.Secret
	tenants                []*authv1beta1.Tenant
	identities             []*authv1beta1.Identity
	slices                 []*authv1beta1.ResourceSlice
	renews                 []*authv1beta1.Renew
	foreignClusters        []*unstructured.Unstructured // Liqo 0.x's
}

// The label selectors of the Secret lists.
var (
	peeringSecretSelector = kube.RemoteClusterIDLabel
	liqo0xSecretSelector  = liqo0x.ClusterIDLabel
)

// isTenantNamespace keeps the tenant namespaces, v1 or 0.x.
func isTenantNamespace(ns *corev1.Namespace) bool {
	_, v1 := ns.Labels[kube.TenantNamespaceLabel]
	return v1 || ns.Labels[liqo0x.TenantNamespaceLabel] == "true"
}

// listBoth lists c and, when given, remote, at once.
func listBoth(ctx context.Context, c, remote *Cluster) (local, other *peeringObjects, err error) {
	var g errgroup.Group
	g.Go(func() (err error) {
		local, err = listPeeringObjects(ctx, c)
		return err
	})
	if remote != nil {
		g.Go(func() (err error) {
			if other, err = listPeeringObjects(ctx, remote); err != nil {
				err = scopedErr(handshake.Remote, err)
			}
			return err
		})
	}
	return local, other, g.Wait()
}

// listPeeringObjects lists, all at once, every kind an overview reads.
func listPeeringObjects(ctx context.Context, c *Cluster) (*peeringObjects, error) {
	c, err := c.WithProtobuf()
	if err != nil {
		return nil, err
	}
	o := &peeringObjects{}
	var g errgroup.Group
	list := func(what string, f func() error) {
		g.Go(func() error {
			if err := f(); err != nil {
				return fmt.Errorf("listing %s: %w", what, c.Reach(err))
			}
			return nil
		})
	}
	g.Go(func() error {
		id, err := c.ClusterID(ctx)
		if err != nil && !kube.IsNotFoundOrNoID(err) && !apierrors.IsForbidden(err) {
			return err
		}
		o.localID = id
		o.release, err = c.DetectRelease(ctx)
		return err
	})
	list("namespaces", func() error {
		l, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err == nil {
			o.namespaces = filterPtrs(l.Items, isTenantNamespace)
		}
		return err
	})
	list("Secrets labelled "+peeringSecretSelector, func() error {
		l, err := c.Kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: peeringSecretSelector})
		if err == nil {
			o.secrets = filterPtrs(l.Items, nil)
		}
		return err
	})
	list("Secrets labelled "+liqo0xSecretSelector, func() error {
		l, err := c.Kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: liqo0xSecretSelector})
		if err == nil {
			o.liqo0xSecrets = filterPtrs(l.Items, nil)
		}
		return err
	})
	// The Liqo kinds are not served on a cluster without Liqo v1 nor init.
	list("Tenants", func() error {
		l, err := c.Liqo.Tenants("").List(ctx, metav1.ListOptions{})
		if err == nil {
			o.tenants = filterPtrs(l.Items, nil)
		}
		return ignoreNotServed(err)
	})
	list("Identities", func() error {
		l, err := c.Liqo.Identities("").List(ctx, metav1.ListOptions{})
		if err == nil {
			o.identities = filterPtrs(l.Items, nil)
		}
		return ignoreNotServed(err)
	})
	list("ResourceSlices", func() error {
		l, err := c.Liqo.ResourceSlices("").List(ctx, metav1.ListOptions{})
		if err == nil {
			o.slices = filterPtrs(l.Items, nil)
		}
		return ignoreNotServed(err)
	})
	list("Renews", func() error {
		l, err := c.Liqo.Renews("").List(ctx, metav1.ListOptions{})
		if err == nil {
			o.renews = filterPtrs(l.Items, nil)
		}
		return ignoreNotServed(err)
	})
	list("Liqo 0.x ForeignClusters", func() error {
		l, err := liqo0x.On(c).ListForeignClusters(ctx)
		o.foreignClusters = filterPtrs(l, nil)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return o, nil
}

// ignoreNotServed treats a kind the cluster does not serve as empty.
func ignoreNotServed(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// filterPtrs points at the items keep accepts (nil: all).
func filterPtrs[T any](items []T, keep func(*T) bool) []*T {
	out := make([]*T, 0, len(items))
	for i := range items {
		if keep == nil || keep(&items[i]) {
			out = append(out, &items[i])
		}
	}
	return out
}

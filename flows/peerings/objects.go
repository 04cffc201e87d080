package peerings

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// Objects are what an overview reads of one cluster: one list per
// kind, or an informer's store per kind.
type Objects struct {
	LocalID string
	Release kube.LiqoRelease
	// Namespaces are the tenant namespaces, v1 and 0.x.
	Namespaces []*corev1.Namespace
	// Secrets are labelled liqo.io/remote-cluster-id (nonces, signed
	// nonces, kubeconfigs, certificate caches); Liqo0xSecrets
	// discovery.liqo.io/cluster-id (0.x identities, issued certificates).
	Secrets, Liqo0xSecrets []*corev1.Secret
	Tenants                []*authv1beta1.Tenant
	Identities             []*authv1beta1.Identity
	Slices                 []*authv1beta1.ResourceSlice
	Renews                 []*authv1beta1.Renew
	ForeignClusters        []*unstructured.Unstructured // Liqo 0.x's
	// Restricted are the lists the kubeconfig may not make, even in the
	// fallback namespace (a peering user's): they count as empty.
	Restricted []string
	// NarrowedTo is the fallback namespace when a list was made there.
	NarrowedTo string
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

// ListBoth lists c and, when given, remote, at once. A remote kubeconfig
// that may not list cluster-wide (a peering user's) is read in the tenant
// namespace Liqo names after this cluster: what it may see there.
func ListBoth(ctx context.Context, c, remote *kube.Cluster) (local, other *Objects, err error) {
	var g errgroup.Group
	g.Go(func() (err error) {
		local, err = listPeeringObjects(ctx, c, "")
		return err
	})
	if remote != nil {
		g.Go(func() (err error) {
			fallback := ""
			if id, err := c.ClusterID(ctx); err == nil {
				fallback = kube.TenantNamespaceName(id)
			}
			if other, err = listPeeringObjects(ctx, remote, fallback); err != nil {
				err = step.Scoped(handshake.Remote, err)
			}
			return err
		})
	}
	return local, other, g.Wait()
}

// listPeeringObjects lists, all at once, every kind an overview reads.
// With a fallback namespace, a list the kubeconfig may not make
// cluster-wide is made in that namespace, and one it may not make there
// either counts as empty (recorded in restricted).
func listPeeringObjects(ctx context.Context, c *kube.Cluster, fallback string) (*Objects, error) {
	c, err := c.WithProtobuf()
	if err != nil {
		return nil, err
	}
	o := &Objects{}
	var mu sync.Mutex
	var g errgroup.Group
	list := func(what string, f func(namespace string) error) {
		g.Go(func() error {
			err := f(metav1.NamespaceAll)
			if apierrors.IsForbidden(err) && fallback != "" {
				err = f(fallback)
				mu.Lock()
				o.NarrowedTo = fallback
				if apierrors.IsForbidden(err) {
					o.Restricted = append(o.Restricted, what)
					err = nil
				}
				mu.Unlock()
			}
			if err != nil {
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
		o.LocalID = id
		o.Release, err = c.DetectRelease(ctx)
		return err
	})
	list("namespaces", func(ns string) error {
		if ns != metav1.NamespaceAll {
			n, err := c.NamespaceNamed(ctx, ns)
			if err == nil {
				o.Namespaces = filterPtrs([]corev1.Namespace{*n}, isTenantNamespace)
			}
			return ignoreNotServed(err)
		}
		l, err := c.Namespaces(ctx)
		if err == nil {
			o.Namespaces = filterPtrs(l, isTenantNamespace)
		}
		return err
	})
	list("Secrets labelled "+peeringSecretSelector, func(ns string) error {
		l, err := c.SecretsLabelled(ctx, ns, peeringSecretSelector)
		if err == nil {
			o.Secrets = filterPtrs(l, nil)
		}
		return err
	})
	list("Secrets labelled "+liqo0xSecretSelector, func(ns string) error {
		l, err := c.SecretsLabelled(ctx, ns, liqo0xSecretSelector)
		if err == nil {
			o.Liqo0xSecrets = filterPtrs(l, nil)
		}
		return err
	})
	// The Liqo kinds are not served on a cluster without Liqo v1 nor init.
	list("Tenants", func(ns string) error {
		l, err := c.TenantsIn(ctx, ns)
		if err == nil {
			o.Tenants = filterPtrs(l, nil)
		}
		return ignoreNotServed(err)
	})
	list("Identities", func(ns string) error {
		l, err := c.IdentitiesIn(ctx, ns)
		if err == nil {
			o.Identities = filterPtrs(l, nil)
		}
		return ignoreNotServed(err)
	})
	list("ResourceSlices", func(ns string) error {
		l, err := c.ResourceSlicesIn(ctx, ns)
		if err == nil {
			o.Slices = filterPtrs(l, nil)
		}
		return ignoreNotServed(err)
	})
	list("Renews", func(ns string) error {
		l, err := c.RenewsIn(ctx, ns)
		if err == nil {
			o.Renews = filterPtrs(l, nil)
		}
		return ignoreNotServed(err)
	})
	list("Liqo 0.x ForeignClusters", func(ns string) error {
		if ns != metav1.NamespaceAll {
			return nil // cluster-scoped: a peering user reads none
		}
		l, err := liqo0x.On(c).ListForeignClusters(ctx)
		o.ForeignClusters = filterPtrs(l, nil)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sort.Strings(o.Restricted)
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

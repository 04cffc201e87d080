package controller

import (
	"slices"
	"strings"

	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// byConsumer is the one index of Tenants: by spec.clusterID (the Tenant a
// nonce, namespace, binding or Renew is about), by name and by namespace
// (placement). For a Tenant placed as Liqo places it (named after its
// cluster ID, in liqo-tenant-<ID>) the three are one value: one index entry
// per Tenant instead of three (each a set, ~240 bytes: 5 MB at 10,000).
// A lookup gets candidates and keeps those that match.
const byConsumer = "consumer"

var tenantIndexers = cache.Indexers{byConsumer: tenantIndexValues}

func tenantIndexValues(obj any) ([]string, error) {
	t, ok := obj.(*authv1beta1.Tenant)
	if !ok {
		return nil, nil
	}
	values := []string{t.Spec.ClusterID}
	for _, v := range []string{t.Name, namespaceIndexValue(t.Namespace)} {
		if !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	return values, nil
}

// namespaceIndexValue is a namespace's value in the index: the cluster ID
// of a tenant namespace's name, else the name behind a prefix no cluster ID
// or Tenant name has.
func namespaceIndexValue(namespace string) string {
	if id, ok := strings.CutPrefix(namespace, kube.TenantNamespacePrefix); ok && id != "" {
		return id
	}
	return "namespace/" + namespace
}

// indexedTenants returns the Tenants of idx under value that match keep
// (all of them scanned when idx lacks the index: a hand-made cache).
func indexedTenants(idx cache.Indexer, value string, keep func(*authv1beta1.Tenant) bool) []*authv1beta1.Tenant {
	objs, err := idx.ByIndex(byConsumer, value)
	if err != nil {
		objs = idx.List()
	}
	var out []*authv1beta1.Tenant
	for _, obj := range objs {
		if t, ok := obj.(*authv1beta1.Tenant); ok && keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// tenantsOfCluster are the Tenants whose spec.clusterID is id.
func tenantsOfCluster(idx cache.Indexer, id string) []*authv1beta1.Tenant {
	return indexedTenants(idx, id, func(t *authv1beta1.Tenant) bool { return t.Spec.ClusterID == id })
}

// tenantsNamed are the Tenants called name, in any namespace.
func tenantsNamed(idx cache.Indexer, name string) []*authv1beta1.Tenant {
	return indexedTenants(idx, name, func(t *authv1beta1.Tenant) bool { return t.Name == name })
}

// tenantsIn are the Tenants of a namespace.
func tenantsIn(idx cache.Indexer, namespace string) []*authv1beta1.Tenant {
	return indexedTenants(idx, namespaceIndexValue(namespace), func(t *authv1beta1.Tenant) bool { return t.Namespace == namespace })
}

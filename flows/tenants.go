package flows

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// TenantStatus is what a provider knows of one consumer's Tenant.
type TenantStatus struct {
	Name, Namespace, ConsumerID string
	Condition                   string // Active | Cordoned | Drained
	Authenticated               bool   // the provider filled status.authParams
	ResourceSlices              []ProvidedSlice
}

// ProvidedSlice is the provider's copy of a consumer's ResourceSlice.
type ProvidedSlice struct {
	Name      string
	Resources string // the Resources condition: Accepted | Denied | ""
	Cordoned  bool   // liqo.io/cordon (the slice itself; the Tenant's cordon is its Condition)
}

// ListTenants lists the provider's Tenants, or the one named consumerID,
// with their condition and the slices replicated from each, by name.
func ListTenants(ctx context.Context, provider *kube.Cluster, consumerID string) ([]TenantStatus, error) {
	var tenants []authv1beta1.Tenant
	if consumerID != "" {
		t, err := findTenant(ctx, provider, consumerID)
		if err != nil {
			return nil, err
		}
		tenants = []authv1beta1.Tenant{*t}
	} else {
		var err error
		if tenants, err = allTenants(ctx, provider); err != nil || len(tenants) == 0 {
			return nil, err
		}
	}
	replicas, err := provider.ReplicatedResourceSlices(ctx, "", consumerID)
	if err != nil && !kube.IsNotFound(err) {
		return nil, fmt.Errorf("listing the ResourceSlices replicated here: %w", err)
	}
	byConsumer := map[string][]ProvidedSlice{}
	for i := range replicas {
		rs := &replicas[i]
		// A copy counts in its consumer's tenant namespace only, as the
		// controller decides it there only (§10.1).
		key := rs.Labels[kube.OriginIDLabel] + "/" + rs.Namespace
		byConsumer[key] = append(byConsumer[key], ProvidedSlice{Name: rs.Name, Cordoned: kube.SliceCordoned(rs),
			Resources: string(kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeResources))})
	}
	out := make([]TenantStatus, 0, len(tenants))
	for _, t := range tenants {
		ns := t.Status.TenantNamespace
		if ns == "" {
			ns = t.Namespace
		}
		slices := byConsumer[t.Spec.ClusterID+"/"+ns]
		sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
		out = append(out, TenantStatus{Name: t.Name, Namespace: t.Namespace, ConsumerID: t.Spec.ClusterID,
			Condition: string(kube.TenantConditionOf(&t)), Authenticated: t.Status.AuthParams != nil, ResourceSlices: slices})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// allTenants lists the Tenants; a cluster that serves none (no Tenant
// CRD) has none.
func allTenants(ctx context.Context, provider *kube.Cluster) ([]authv1beta1.Tenant, error) {
	tenants, err := provider.AllTenants(ctx)
	if kube.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the Tenants: %w", err)
	}
	return tenants, nil
}

// findTenant finds a Tenant by name in any namespace, as liqoctl does (the
// name is the consumer's cluster ID, §5.1); when there is none, the error
// names those there are.
func findTenant(ctx context.Context, provider *kube.Cluster, name string) (*authv1beta1.Tenant, error) {
	tenants, err := allTenants(ctx, provider)
	if err != nil {
		return nil, err
	}
	var found []*authv1beta1.Tenant
	names := make([]string, 0, len(tenants))
	for i := range tenants {
		names = append(names, tenants[i].Name)
		if tenants[i].Name == name {
			found = append(found, &tenants[i])
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return nil, fmt.Errorf("%d Tenants named %s (namespaces %s and %s): remove the one outside the tenant namespace of %s",
			len(found), name, found[0].Namespace, found[1].Namespace, name)
	case len(names) == 0:
		return nil, fmt.Errorf("no Tenant %s on this cluster, which has none: a consumer's Tenant arrives with `liqo-auth-tui authenticate` or `liqo-auth-tui apply tenant`", name)
	}
	return nil, fmt.Errorf("no Tenant %s on this cluster: its Tenants are %s", name, listed(names))
}

// findProvidedSlice finds the provider's copy of a consumer's slice, in
// that consumer's tenant namespace, as liqoctl does; when there is none,
// the error names those there are, or where the slice is cordoned.
func findProvidedSlice(ctx context.Context, provider *kube.Cluster, name, consumerID, verb string) (*authv1beta1.ResourceSlice, error) {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("invalid ResourceSlice name %q: %s", name, errs[0])
	}
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if kube.IsNotFound(err) {
		return nil, fmt.Errorf("no ResourceSlice %s of consumer %s on this cluster, which has no tenant namespace for it: `liqo-auth-tui get tenant` lists the consumers", name, consumerID)
	}
	if err != nil {
		return nil, err
	}
	rs, err := provider.ResourceSlice(ctx, ns.Name, name)
	if kube.IsNotFound(err) {
		return nil, noSliceError(ctx, provider, name, consumerID, ns.Name)
	}
	if err != nil {
		return nil, err
	}
	if !kube.IsReplicatedSlice(rs) {
		return nil, fmt.Errorf("ResourceSlice %s/%s is this cluster's own request to provider %s: %s it on the provider, whose admin runs `liqo-auth-tui %s resourceslice %s --remote-cluster-id %s`",
			rs.Namespace, rs.Name, consumerID, verb, verb, rs.Name, ownIDOr(ctx, provider, "<this cluster's ID>"))
	}
	return rs, nil
}

func noSliceError(ctx context.Context, provider *kube.Cluster, name, consumerID, namespace string) error {
	replicas, err := provider.ReplicatedResourceSlices(ctx, namespace, consumerID)
	if err != nil || len(replicas) == 0 {
		return fmt.Errorf("no ResourceSlice %s of consumer %s on this cluster: it has none here", name, consumerID)
	}
	names := make([]string, len(replicas))
	for i := range replicas {
		names[i] = replicas[i].Name
	}
	return fmt.Errorf("no ResourceSlice %s of consumer %s on this cluster: its slices here are %s", name, consumerID, listed(names))
}

func ownIDOr(ctx context.Context, c *kube.Cluster, unknown string) string {
	if id, err := c.ClusterID(ctx); err == nil {
		return id
	}
	return unknown
}

// listed joins names sorted, at most maxListed of them, for one line.
func listed(names []string) string {
	const maxListed = 10
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	if len(sorted) > maxListed {
		return strings.Join(sorted[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(sorted)-maxListed)
	}
	return strings.Join(sorted, ", ")
}

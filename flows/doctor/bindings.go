package doctor

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// tenantBindings are a provider's bindings for its consumers (§6.5),
// listed once per doctor run: a provider with a thousand consumers gets
// two lists, not two reads per consumer.
type tenantBindings struct {
	roles *kube.TenantClusterRoles
	// roleBindings by namespace/name, clusterRoleBindings by name: those
	// labelled with a consumer's ID, as the provider makes them.
	roleBindings, clusterRoleBindings map[string]bool
}

func (d *run) tenantBindingsOf(ctx context.Context, provider *kube.Cluster) (*tenantBindings, error) {
	if b := d.bindings[provider]; b != nil {
		return b, nil
	}
	roles, err := provider.TenantRoles(ctx)
	if err != nil {
		return nil, err
	}
	rbs, crbs, err := provider.TenantBindings(ctx)
	if err != nil {
		return nil, err
	}
	b := &tenantBindings{roles: roles, roleBindings: map[string]bool{}, clusterRoleBindings: map[string]bool{}}
	for _, rb := range rbs.Items {
		b.roleBindings[rb.Namespace+"/"+rb.Name] = true
	}
	for _, crb := range crbs.Items {
		b.clusterRoleBindings[crb.Name] = true
	}
	if d.bindings == nil {
		d.bindings = map[*kube.Cluster]*tenantBindings{}
	}
	d.bindings[provider] = b
	return b, nil
}

// missingBindings lists the consumer's RoleBindings and ClusterRoleBindings
// the provider should hold (one per ClusterRole labelled for tenants) and
// does not. One not in the labelled lists is looked for by name: someone
// may have made it again without the labels.
func (d *run) missingBindings(ctx context.Context, provider *kube.Cluster, t *authv1beta1.Tenant) ([]string, error) {
	b, err := d.tenantBindingsOf(ctx, provider)
	if err != nil {
		return nil, err
	}
	var missing []string
	ns := t.Status.TenantNamespace
	for _, role := range b.roles.ControlPlane {
		name := kube.RoleBindingName(role)
		if b.roleBindings[ns+"/"+name] {
			continue
		}
		if _, err := provider.RoleBinding(ctx, ns, name); kube.IsNotFound(err) {
			missing = append(missing, "RoleBinding "+ns+"/"+name)
		} else if err != nil {
			return nil, err
		}
	}
	for _, role := range b.roles.ClusterWide {
		name := kube.ClusterRoleBindingName(role, t.Spec.ClusterID)
		if b.clusterRoleBindings[name] {
			continue
		}
		if _, err := provider.ClusterRoleBinding(ctx, name); kube.IsNotFound(err) {
			missing = append(missing, "ClusterRoleBinding "+name)
		} else if err != nil {
			return nil, err
		}
	}
	return missing, nil
}

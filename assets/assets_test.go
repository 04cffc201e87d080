package assets_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/assets"
)

func TestCRDs(t *testing.T) {
	manifests, err := assets.CRDManifests()
	require.NoError(t, err)

	want := map[string]struct {
		kind      string
		shortName string
	}{
		"identities":     {"Identity", "id"},
		"renews":         {"Renew", ""},
		"resourceslices": {"ResourceSlice", "rslice"},
		"tenants":        {"Tenant", "tn"},
	}
	require.Len(t, manifests, len(want))

	var plurals []string
	for _, m := range manifests {
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, yaml.UnmarshalStrict(m, &crd))
		plural := crd.Spec.Names.Plural
		plurals = append(plurals, plural)
		w, ok := want[plural]
		require.Truef(t, ok, "unexpected CRD %s", crd.Name)

		assert.Equal(t, "CustomResourceDefinition", crd.Kind)
		assert.Equal(t, "apiextensions.k8s.io/v1", crd.APIVersion)
		assert.Equal(t, plural+".authentication.liqo.io", crd.Name)
		assert.Equal(t, "authentication.liqo.io", crd.Spec.Group)
		assert.Equal(t, w.kind, crd.Spec.Names.Kind)
		assert.Equal(t, w.kind+"List", crd.Spec.Names.ListKind)
		assert.Equal(t, apiextensionsv1.NamespaceScoped, crd.Spec.Scope)
		assert.Equal(t, []string{"liqo"}, crd.Spec.Names.Categories)
		if w.shortName != "" {
			assert.Equal(t, []string{w.shortName}, crd.Spec.Names.ShortNames)
		} else {
			assert.Empty(t, crd.Spec.Names.ShortNames)
		}

		require.Len(t, crd.Spec.Versions, 1, crd.Name)
		v := crd.Spec.Versions[0]
		assert.Equal(t, "v1beta1", v.Name)
		assert.True(t, v.Served, crd.Name)
		assert.True(t, v.Storage, crd.Name)
		require.NotNil(t, v.Subresources, crd.Name)
		assert.NotNil(t, v.Subresources.Status, crd.Name)
		require.NotNil(t, v.Schema)
		require.NotNil(t, v.Schema.OpenAPIV3Schema)
		assert.Contains(t, v.Schema.OpenAPIV3Schema.Properties, "spec")
		assert.Contains(t, v.Schema.OpenAPIV3Schema.Properties, "status")
	}
	// Stable order: sorted by file name.
	assert.Equal(t, []string{"identities", "renews", "resourceslices", "tenants"}, plurals)
}

func TestTenantCRDSchema(t *testing.T) {
	manifests, err := assets.CRDManifests()
	require.NoError(t, err)
	var crd apiextensionsv1.CustomResourceDefinition
	require.NoError(t, yaml.Unmarshal(manifests[3], &crd))
	require.Equal(t, "tenants.authentication.liqo.io", crd.Name)

	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	clusterID := spec.Properties["clusterID"]
	assert.Equal(t, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, clusterID.Pattern)
	require.Len(t, clusterID.XValidations, 1)
	assert.Equal(t, "self == oldSelf", clusterID.XValidations[0].Rule)
	assert.Equal(t, "ClusterID is immutable", clusterID.XValidations[0].Message)
	assert.Equal(t, "byte", spec.Properties["publicKey"].Format)
	require.NotNil(t, spec.Properties["authzPolicy"].Default)
	assert.JSONEq(t, `"KeysExchange"`, string(spec.Properties["authzPolicy"].Default.Raw))
	require.NotNil(t, spec.Properties["tenantCondition"].Default)
	assert.JSONEq(t, `"Active"`, string(spec.Properties["tenantCondition"].Default.Raw))
	assert.Len(t, spec.Properties["tenantCondition"].Enum, 3)
}

func TestClusterRoles(t *testing.T) {
	manifests, err := assets.ClusterRoleManifests()
	require.NoError(t, err)

	want := []struct {
		name      string
		labels    map[string]string
		apiGroups []string
	}{
		{
			name: "liqo-remote-controlplane",
			labels: map[string]string{
				"app.kubernetes.io/name":      "remote-controlplane",
				"app.kubernetes.io/component": "authentication",
				"app.kubernetes.io/part-of":   "liqo",
			},
			apiGroups: []string{"authentication.liqo.io", "offloading.liqo.io"},
		},
		{
			name: "liqo-virtual-kubelet-remote-clusterwide",
			labels: map[string]string{
				"app.kubernetes.io/name":      "virtual-kubelet-remote-clusterwide",
				"app.kubernetes.io/component": "virtualkubelet",
				"app.kubernetes.io/part-of":   "liqo",
			},
			apiGroups: []string{"metrics.liqo.io"},
		},
	}
	require.Len(t, manifests, len(want))
	for i, w := range want {
		var role rbacv1.ClusterRole
		require.NoError(t, yaml.UnmarshalStrict(manifests[i], &role))
		assert.Equal(t, "rbac.authorization.k8s.io/v1", role.APIVersion)
		assert.Equal(t, "ClusterRole", role.Kind)
		assert.Equal(t, w.name, role.Name)
		assert.Equal(t, w.labels, role.Labels)
		var groups []string
		for _, r := range role.Rules {
			groups = append(groups, r.APIGroups...)
			assert.NotEmpty(t, r.Resources)
			assert.NotEmpty(t, r.Verbs)
		}
		assert.Equal(t, w.apiGroups, groups)
	}
}

func TestRemoteControlPlaneRules(t *testing.T) {
	manifests, err := assets.ClusterRoleManifests()
	require.NoError(t, err)
	var role rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal(manifests[0], &role))
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	assert.Equal(t, []rbacv1.PolicyRule{
		{
			APIGroups: []string{"authentication.liqo.io"},
			Resources: []string{"renews", "renews/status", "resourceslices", "resourceslices/status"},
			Verbs:     all,
		},
		{
			APIGroups: []string{"offloading.liqo.io"},
			Resources: []string{"namespacemaps", "namespacemaps/status"},
			Verbs:     all,
		},
	}, role.Rules)
}

// The peering-user roles have the names, labels and rules of Liqo's chart
// (deployments/liqo/files/liqo-peering-user-*.yaml), in the same order.
func TestPeeringUserRoles(t *testing.T) {
	manifests, err := assets.PeeringUserManifests()
	require.NoError(t, err)
	require.Len(t, manifests, 2)
	labels := map[string]string{
		"app.kubernetes.io/name":      "peering-user",
		"app.kubernetes.io/component": "peering-user",
		"app.kubernetes.io/part-of":   "liqo",
	}

	var role rbacv1.Role
	require.NoError(t, yaml.UnmarshalStrict(manifests[0], &role))
	assert.Equal(t, "Role", role.Kind)
	assert.Equal(t, "liqo-peering-user-liqo-ns", role.Name)
	assert.Equal(t, "liqo", role.Namespace)
	assert.Equal(t, labels, role.Labels)
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"ipam.liqo.io"}, Resources: []string{"ips"}, Verbs: []string{"get"}},
		{APIGroups: []string{"ipam.liqo.io"}, Resources: []string{"networks"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"networking.liqo.io"}, Resources: []string{"wggatewayclienttemplates", "wggatewayservertemplates"}, Verbs: []string{"get", "list"}},
	}, role.Rules)

	var clusterRole rbacv1.ClusterRole
	require.NoError(t, yaml.UnmarshalStrict(manifests[1], &clusterRole))
	assert.Equal(t, "ClusterRole", clusterRole.Kind)
	assert.Equal(t, "liqo-peering-user-tenant-ns", clusterRole.Name)
	assert.Equal(t, labels, clusterRole.Labels)
	crud := []string{"create", "delete", "get", "list", "update"}
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"namespaces", "services"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create", "delete", "get", "list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get"}},
		{APIGroups: []string{"authentication.liqo.io"}, Resources: []string{"tenants"}, Verbs: crud},
		{APIGroups: []string{"ipam.liqo.io"}, Resources: []string{"ips"}, Verbs: []string{"create", "delete", "get", "update"}},
		{APIGroups: []string{"networking.liqo.io"}, Resources: []string{"configurations", "gatewayclients", "gatewayservers", "publickeies"}, Verbs: crud},
		{APIGroups: []string{"networking.liqo.io"}, Resources: []string{"connections"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"networking.liqo.io"}, Resources: []string{"gatewayclients/status", "gatewayservers/status"}, Verbs: []string{"get"}},
	}, clusterRole.Rules)
}

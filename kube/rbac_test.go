//go:build cluster

package kube_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// BindTenant creates Liqo's RoleBinding and ClusterRoleBinding for a
// consumer once; UnbindTenant removes them; both are idempotent.
func TestBindAndUnbindTenant(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[0].Config, "rbac-test")
	ctx := labtest.Context(t)
	require.NoError(t, err)
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: "rbac-provider"})
	require.NoError(t, err)
	roles, err := c.TenantRoles(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{kube.RemoteControlPlaneClusterRole}, roles.ControlPlane)
	assert.Equal(t, []string{kube.RemoteClusterWideClusterRole}, roles.ClusterWide)

	const consumer = "rbac-consumer"
	ns, _, err := c.EnsureTenantNamespace(ctx, consumer)
	require.NoError(t, err)
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	forged, err := kube.ForgeTenant(consumer, ns.Name, key, []byte("sig"), "")
	require.NoError(t, err)
	tenant, _, err := c.ApplyTenant(ctx, forged)
	require.NoError(t, err)

	changes, err := bindTenant(ctx, c, tenant, ns.Name, roles)
	require.NoError(t, err)
	assert.Equal(t, []kube.Change{
		{Object: "RoleBinding " + ns.Name + "/liqo-binding-liqo-remote-controlplane", Action: kube.Created},
		{Object: "ClusterRoleBinding liqo-binding-liqo-virtual-kubelet-remote-clusterwide-" + consumer, Action: kube.Created},
	}, changes)
	changes, err = bindTenant(ctx, c, tenant, ns.Name, roles)
	require.NoError(t, err)
	for _, ch := range changes {
		assert.Equal(t, kube.Unchanged, ch.Action, ch.Object)
	}

	rb, err := c.Kube.RbacV1().RoleBindings(ns.Name).Get(ctx, "liqo-binding-liqo-remote-controlplane", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "liqo", kube.RemoteClusterIDLabel: consumer}, rb.Labels)
	assert.Equal(t, []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: consumer}}, rb.Subjects)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: kube.RemoteControlPlaneClusterRole}, rb.RoleRef)
	owner := metav1.GetControllerOf(rb)
	require.NotNil(t, owner)
	assert.Equal(t, "Tenant", owner.Kind)
	assert.Equal(t, tenant.UID, owner.UID)
	crb, err := c.Kube.RbacV1().ClusterRoleBindings().Get(ctx, kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, consumer), metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []rbacv1.Subject{{Kind: "Group", APIGroup: rbacv1.GroupName, Name: consumer}}, crb.Subjects)
	assert.Empty(t, crb.OwnerReferences)

	changes, err = c.UnbindTenant(ctx, consumer, ns.Name, roles)
	require.NoError(t, err)
	assert.Equal(t, []kube.Change{
		{Object: "ClusterRoleBinding liqo-binding-liqo-virtual-kubelet-remote-clusterwide-" + consumer, Action: kube.Deleted},
		{Object: "RoleBinding " + ns.Name + "/liqo-binding-liqo-remote-controlplane", Action: kube.Deleted},
	}, changes)
	changes, err = c.UnbindTenant(ctx, consumer, ns.Name, nil)
	require.NoError(t, err)
	for _, ch := range changes {
		assert.Equal(t, kube.Unchanged, ch.Action, ch.Object)
	}
}

// bindTenant creates all the RBAC of §6.5 for an accepted Tenant.
func bindTenant(ctx context.Context, c *kube.Cluster, t *authv1beta1.Tenant, tenantNamespace string, roles *kube.TenantClusterRoles) ([]kube.Change, error) {
	changes, err := c.BindTenantNamespace(ctx, t, tenantNamespace, roles.ControlPlane)
	if err != nil {
		return changes, err
	}
	cw, err := c.BindTenantClusterWide(ctx, t.Spec.ClusterID, roles.ClusterWide)
	return append(changes, cw...), err
}

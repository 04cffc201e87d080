//go:build cluster

package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Uninstalling removes the controller and its RBAC, and keeps what existing
// peerings need: CRDs, the cluster ID and keys, the consumer ClusterRoles.
func TestUninstallKeepsPeeringState(t *testing.T) {
	p := prepare(t, 0, "un-provider")
	ctx := labtest.Context(t)
	changes, err := p.admin.UninstallController(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, changes)
	for _, ch := range changes {
		assert.Equal(t, kube.Deleted, ch.Action, ch.Object)
	}
	_, err = p.admin.Kube.AppsV1().Deployments(p.admin.Namespace).Get(ctx, "liqo-auth-controller", metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "%v", err)
	_, err = p.admin.Kube.RbacV1().ClusterRoles().Get(ctx, "liqo-auth-controller", metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "%v", err)
	_, err = p.admin.Kube.RbacV1().ClusterRoles().Get(ctx, kube.RemoteControlPlaneClusterRole, metav1.GetOptions{})
	assert.NoError(t, err)
	_, err = p.admin.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "tenants.authentication.liqo.io", metav1.GetOptions{})
	assert.NoError(t, err)
	id, err := p.admin.ClusterID(ctx)
	require.NoError(t, err)
	assert.Equal(t, "un-provider", id)
	_, _, err = p.admin.PublicKey(ctx)
	assert.NoError(t, err)

	again, err := p.admin.UninstallController(ctx)
	require.NoError(t, err)
	for _, ch := range again {
		assert.Equal(t, kube.Unchanged, ch.Action, ch.Object)
	}
}

//go:build cluster

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The consumer's bindings (§6.5), deleted by someone else right after the
// handshake — while the reconciler still remembers creating them — are made
// again at once.
func TestDeletedBindingsAreMadeAgain(t *testing.T) {
	p, c := providerCluster(t), consumerCluster(t)
	startManager(t, p, Options{Provider: true})
	startManager(t, c, Options{Consumer: true})
	provNS, _ := authenticate(t, p, c)
	ctx := labtest.Context(t)

	rbs := p.Kube.RbacV1().RoleBindings(provNS)
	rbName := kube.RoleBindingName(kube.RemoteControlPlaneClusterRole)
	old, err := rbs.Get(ctx, rbName, metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, rbs.Delete(ctx, rbName, metav1.DeleteOptions{}))
	_, err = kube.WaitFor(ctx, kube.ListWatch(rbs.List, rbs.Watch, kube.ByName(rbName)), "RoleBinding "+rbName+" made again",
		func(rb *rbacv1.RoleBinding) (bool, error) { return rb.UID != old.UID, nil })
	require.NoError(t, err)

	crbs := p.Kube.RbacV1().ClusterRoleBindings()
	crbName := kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, consumerID)
	oldCRB, err := crbs.Get(ctx, crbName, metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, crbs.Delete(ctx, crbName, metav1.DeleteOptions{}))
	_, err = kube.WaitFor(ctx, kube.ListWatch(crbs.List, crbs.Watch, kube.ByName(crbName)), "ClusterRoleBinding "+crbName+" made again",
		func(crb *rbacv1.ClusterRoleBinding) (bool, error) { return crb.UID != oldCRB.UID, nil })
	require.NoError(t, err)
}

//go:build cluster

package liqointerop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// unauthenticateLeavesNoAccess unauthenticates an authenticated pair and
// checks that it leaves what liqoctl unauthenticate leaves (§9.3), whoever
// serves each side: no control-plane Identity, kubeconfig Secret or Renew
// on the consumer; no Tenant and no binding of the consumer on the
// provider, so that the old certificate, still valid, is authorized for
// nothing there. The tenant namespaces stay, for a later authenticate.
func unauthenticateLeavesNoAccess(t *testing.T, ctx context.Context, consumer, provider *kube.Cluster, consumerID, providerID string) {
	t.Helper()
	s, err := consumer.KubeconfigSecretFor(ctx, providerID)
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	require.NoError(t, err)

	res, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	assert.Empty(t, res.Leftovers)

	consNS, provNS := kube.TenantNamespaceName(providerID), kube.TenantNamespaceName(consumerID)
	_, err = consumer.ControlPlaneIdentityFor(ctx, providerID)
	assert.True(t, kube.IsNotFound(err), "the control-plane Identity is gone: %v", err)
	_, err = consumer.KubeconfigSecretFor(ctx, providerID)
	assert.True(t, kube.IsNotFound(err), "the kubeconfig Secret went with its Identity: %v", err)
	renews, err := consumer.Liqo.Renews(consNS).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, renews.Items, "a Renew goes with its Identity")

	_, err = provider.TenantFor(ctx, provNS, consumerID)
	assert.True(t, kube.IsNotFound(err), "the Tenant is gone: %v", err)
	bindings := metav1.ListOptions{LabelSelector: labels.Set{kube.ManagedByLabel: kube.LiqoManagedByValue, kube.RemoteClusterIDLabel: consumerID}.String()}
	crbs, err := provider.Kube.RbacV1().ClusterRoleBindings().List(ctx, bindings)
	require.NoError(t, err)
	assert.Empty(t, crbs.Items)
	rbs, err := provider.Kube.RbacV1().RoleBindings(provNS).List(ctx, bindings)
	require.NoError(t, err)
	assert.Empty(t, rbs.Items)
	v, err := flows.VerifyConfig(ctx, cfg, provNS)
	require.NoError(t, err)
	assert.Equal(t, consumerID, v.User, "the old certificate is still valid ...")
	assert.Empty(t, v.Allowed, "... but authorized for nothing")

	for _, side := range []struct {
		c        *kube.Cluster
		remoteID string
	}{{consumer, providerID}, {provider, consumerID}} {
		_, err := side.c.TenantNamespace(ctx, side.remoteID)
		assert.NoError(t, err, "the tenant namespace of %s stays", side.remoteID)
	}
}

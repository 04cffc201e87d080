//go:build cluster

package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The kubeconfig Secret follows its Identity: re-created when deleted,
// updated when the Identity changes, left alone otherwise.
func TestIdentityKeepsItsKubeconfigSecret(t *testing.T) {
	c := consumerCluster(t)
	startManager(t, c, Options{Consumer: true})
	ctx := labtest.Context(t)
	const provider = "identity-provider"
	ns, _, err := c.EnsureTenantNamespace(ctx, provider)
	require.NoError(t, err)
	id := &authv1beta1.Identity{
		ObjectMeta: metav1.ObjectMeta{Name: kube.ControlPlaneIdentityName(provider), Namespace: ns.Name,
			Labels: map[string]string{kube.RemoteClusterIDLabel: provider}},
		Spec: authv1beta1.IdentitySpec{ClusterID: provider, Type: authv1beta1.ControlPlaneIdentityType, Namespace: "liqo-tenant-me",
			AuthParams: authv1beta1.AuthParams{APIServer: "https://provider.example:6443", CA: []byte("ca"), SignedCRT: []byte("crt")}},
	}
	_, _, err = c.ApplyIdentity(ctx, id)
	require.NoError(t, err)
	name := kube.KubeconfigSecretName(id.Name)
	secret := waitSecret(t, c, ns.Name, name, func(*corev1.Secret) bool { return true })
	assert.Equal(t, "liqo-tenant-me", secret.Annotations[kube.RemoteTenantNamespace])
	cfg, err := clientcmd.Load(secret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	assert.Equal(t, "https://provider.example:6443", cfg.Clusters[provider].Server)
	assert.Equal(t, "liqo-tenant-me", cfg.Contexts[cfg.CurrentContext].Namespace)

	// Deleted by hand: it comes back.
	require.NoError(t, c.Kube.CoreV1().Secrets(ns.Name).Delete(ctx, name, metav1.DeleteOptions{}))
	recreated := waitSecret(t, c, ns.Name, name, func(s *corev1.Secret) bool { return s.UID != secret.UID })
	assert.Equal(t, secret.Data, recreated.Data)

	// The provider moved: the kubeconfig follows.
	id.Spec.AuthParams.APIServer = "https://moved.example:6443"
	id.Spec.Namespace = "liqo-tenant-me-2"
	_, _, err = c.ApplyIdentity(ctx, id)
	require.NoError(t, err)
	updated := waitSecret(t, c, ns.Name, name, func(s *corev1.Secret) bool {
		return s.Annotations[kube.RemoteTenantNamespace] == "liqo-tenant-me-2"
	})
	cfg, err = clientcmd.Load(updated.Data[kube.KubeconfigField])
	require.NoError(t, err)
	assert.Equal(t, "https://moved.example:6443", cfg.Clusters[provider].Server)
	assert.Equal(t, recreated.UID, updated.UID, "updated in place")

	got, err := c.Liqo.Identities(ns.Name).Get(ctx, id.Name, metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, got.Status.KubeconfigSecretRef)
	assert.Equal(t, name, got.Status.KubeconfigSecretRef.Name)
	assert.NotContains(t, eventReasons(t, c, authv1beta1.IdentityKind, ns.Name, id.Name), ReasonKubeconfigFailed)
}

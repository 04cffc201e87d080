//go:build cluster

package liqointerop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A consumer handed from our replicator to Liqo v1.2.0's crd-replicator
// (Liqo installed after this project replicated a slice): our finalizers
// are Liqo's, so Liqo's replicator deletes the copies on the provider and
// lets the slice, the Renew and the kubeconfig Secret go.
func TestOurReplicasHandedToLiqoReplicator(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), sliceTimeout)
	defer cancel()
	const liqoID, ourID, slice = "liqo-handover-provider", "ours-handover-consumer", "handed-over"
	provider := liqotest.LiqoCluster(t, ctx, cs[0], liqoID, true, false)
	consumer := liqotest.OurCluster(t, ctx, cs[1], ourID)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	_, err = flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: slice, ProviderID: liqoID, CPU: "1"},
		flows.SliceOptions{Wait: true, Provider: provider}, nil)
	require.NoError(t, err)

	consNS, provNS := kube.TenantNamespaceName(liqoID), kube.TenantNamespaceName(ourID)
	local, err := consumer.Liqo.ResourceSlices(consNS).Get(ctx, slice, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, local.Finalizers, kube.ReplicaFinalizer, "held by our replicator, with Liqo's finalizer")
	secret, err := consumer.KubeconfigSecretFor(ctx, liqoID)
	require.NoError(t, err)
	assert.Contains(t, secret.Finalizers, kube.ReplicatorSecretFinalizer)
	_, err = provider.Liqo.ResourceSlices(provNS).Get(ctx, slice, metav1.GetOptions{})
	require.NoError(t, err, "copied by our replicator")

	// Liqo comes to the consumer; our in-process controllers are gone.
	require.NoError(t, realliqov1.InstallCRDs(ctx, cs[1].Config, ""))
	t.Cleanup(func() { // the next tests see no Liqo on this cluster
		_ = consumer.APIExt.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), kube.LiqoForeignClusterCRDName, metav1.DeleteOptions{})
	})
	realliqov1.StartReplicator(t, cs[1].KubeconfigPath, realliqov1.ReplicatorOptions{ClusterID: ourID})

	slices := consumer.Liqo.ResourceSlices(consNS)
	require.NoError(t, slices.Delete(ctx, slice, metav1.DeleteOptions{}))
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(slices.List, slices.Watch, kube.ByName(slice)), &authv1beta1.ResourceSlice{}, "slice let go by Liqo's replicator"))
	// Liqo's replicator deletes the copy too; not always first: v1.2.0 looks
	// for it in its provider's cache before that cache has synced, finds
	// nothing and lets the slice go, then deletes the copy once synced.
	copies := provider.Liqo.ResourceSlices(provNS)
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(copies.List, copies.Watch, kube.ByName(slice)), &authv1beta1.ResourceSlice{}, "copy deleted by Liqo's replicator"))

	// The Identity: its Renew and the Secret go once the copies did.
	id, err := consumer.ControlPlaneIdentityFor(ctx, liqoID)
	require.NoError(t, err)
	require.NoError(t, consumer.Liqo.Identities(id.Namespace).Delete(ctx, id.Name, metav1.DeleteOptions{}))
	secrets := consumer.Kube.CoreV1().Secrets(secret.Namespace)
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(secret.Name)), &corev1.Secret{}, "kubeconfig Secret let go by Liqo's replicator"))
	renewCopies, err := provider.Liqo.Renews(provNS).List(ctx, metav1.ListOptions{LabelSelector: kube.ReplicaSelector(ourID)})
	require.NoError(t, err)
	assert.Empty(t, renewCopies.Items, "no Renew copy left on the provider")
}

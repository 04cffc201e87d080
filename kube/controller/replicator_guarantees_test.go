//go:build cluster

package controller

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// testHold is a finalizer the test puts on a copy on the provider, so that
// the copy stays (Terminating) while the consumer's side is looked at.
const testHold = "example.com/test-hold"

// Liqo's guarantees (§10): a local ResourceSlice being deleted stays, held
// by crdreplicator.liqo.io/resource, until its copy on the provider is
// gone; an Identity's deletion takes its Renew's copy on the provider
// first, and its kubeconfig Secret (held by crdreplicator.liqo.io/operator)
// goes last.
func TestReplicaFinalizers(t *testing.T) {
	p, c := providerCluster(t), consumerCluster(t)
	cleanupReplicas(t, p, c)
	startManager(t, p, Options{Provider: true})
	startManager(t, c, Options{Consumer: true})
	provNS, consNS := authenticate(t, p, c)
	ctx := labtest.Context(t)
	remoteSlices, localSlices := p.Liqo.ResourceSlices(provNS), c.Liqo.ResourceSlices(consNS)
	remoteRenews, localRenews := p.Liqo.Renews(provNS), c.Liqo.Renews(consNS)
	secretName := kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID))
	waitSecret(t, c, consNS, secretName, func(s *corev1.Secret) bool { return slices.Contains(s.Finalizers, kube.ReplicatorSecretFinalizer) })

	// A slice: held while its copy is there.
	_, err := localSlices.Create(ctx, &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "guard-slice", Namespace: consNS, Labels: replicated(providerID, nil)},
		Spec:       authv1beta1.ResourceSliceSpec{Class: "replicator-test"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	waitRemoteSlice(t, p, provNS, "guard-slice", func(*authv1beta1.ResourceSlice) bool { return true })
	held, err := localSlices.Get(ctx, "guard-slice", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, held.Finalizers, kube.ReplicaFinalizer, "held before it was copied")
	addFinalizer(t, func(patch []byte) error {
		_, err := remoteSlices.Patch(ctx, "guard-slice", types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	require.NoError(t, localSlices.Delete(ctx, "guard-slice", metav1.DeleteOptions{}))
	// The replicator deleted the copy, which the provider holds: the local
	// slice is still there, Terminating.
	waitRemoteSlice(t, p, provNS, "guard-slice", func(s *authv1beta1.ResourceSlice) bool { return s.DeletionTimestamp != nil })
	held, err = localSlices.Get(ctx, "guard-slice", metav1.GetOptions{})
	require.NoError(t, err, "the local slice waits for its copy")
	assert.NotNil(t, held.DeletionTimestamp)
	assert.Contains(t, held.Finalizers, kube.ReplicaFinalizer)
	releaseFinalizer(t, func(patch []byte) error {
		_, err := remoteSlices.Patch(ctx, "guard-slice", types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	waitGone(t, kube.ListWatch(localSlices.List, localSlices.Watch, kube.ByName("guard-slice")), &authv1beta1.ResourceSlice{}, "guard-slice")
	_, err = remoteSlices.Get(ctx, "guard-slice", metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "the copy went first: %v", err)

	// The Identity: its Renew's copy goes before the Renew and the Secret.
	idName := kube.ControlPlaneIdentityName(providerID)
	// Each wait on its own minute: the garbage collector (which deletes the
	// Renew and the Secret) may take its time on a loaded machine.
	renewCopy, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(remoteRenews.List, remoteRenews.Watch, kube.ByName(idName)), "renew copy",
		func(*authv1beta1.Renew) (bool, error) { return true, nil })
	require.NoError(t, err)
	addFinalizer(t, func(patch []byte) error {
		_, err := remoteRenews.Patch(ctx, renewCopy.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	// Deleted as kubectl and liqoctl do (background): the garbage collector
	// deletes the Renew and the Secret.
	require.NoError(t, c.Liqo.Identities(consNS).Delete(ctx, idName, metav1.DeleteOptions{}))
	_, err = kube.WaitFor(labtest.Context(t), kube.ListWatch(remoteRenews.List, remoteRenews.Watch, kube.ByName(idName)), "renew copy deleted",
		func(r *authv1beta1.Renew) (bool, error) { return r.DeletionTimestamp != nil, nil })
	require.NoError(t, err)
	renew, err := localRenews.Get(ctx, idName, metav1.GetOptions{})
	require.NoError(t, err, "the Renew waits for its copy")
	assert.NotNil(t, renew.DeletionTimestamp)
	secret := waitSecret(t, c, consNS, secretName, func(s *corev1.Secret) bool { return s.DeletionTimestamp != nil })
	assert.Contains(t, secret.Finalizers, kube.ReplicatorSecretFinalizer, "the Secret waits for the copies")
	releaseFinalizer(t, func(patch []byte) error {
		_, err := remoteRenews.Patch(ctx, idName, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	waitGone(t, kube.ListWatch(localRenews.List, localRenews.Watch, kube.ByName(idName)), &authv1beta1.Renew{}, idName)
	_, err = remoteRenews.Get(ctx, idName, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "the copy went before the Renew: %v", err)
	secrets := c.Kube.CoreV1().Secrets(consNS)
	waitGone(t, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(secretName)), &corev1.Secret{}, secretName)
}

// cleanupReplicas registers, before the Managers it outlives, the removal
// of what replication left once no replicator runs: the copies on the
// provider (the next test's provider would answer them, and some tests
// count its API requests) and every finalizer on both sides (no replicator
// will take them off).
func cleanupReplicas(t *testing.T, p, c *kube.Cluster) {
	t.Cleanup(func() {
		ctx := context.Background()
		unheld := []byte(`{"metadata":{"finalizers":null}}`)
		local := metav1.ListOptions{LabelSelector: kube.ReplicationSelector(providerID)}
		remote := metav1.ListOptions{LabelSelector: kube.ReplicaSelector(consumerID)}
		if l, err := c.Liqo.ResourceSlices("").List(ctx, local); err == nil {
			for _, o := range l.Items {
				_, _ = c.Liqo.ResourceSlices(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, unheld, metav1.PatchOptions{})
			}
		}
		if l, err := c.Liqo.Renews("").List(ctx, local); err == nil {
			for _, o := range l.Items {
				_, _ = c.Liqo.Renews(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, unheld, metav1.PatchOptions{})
			}
		}
		if s, err := c.KubeconfigSecretFor(ctx, providerID); err == nil {
			_, _ = c.Kube.CoreV1().Secrets(s.Namespace).Patch(ctx, s.Name, types.MergePatchType, unheld, metav1.PatchOptions{})
		}
		if l, err := p.Liqo.ResourceSlices("").List(ctx, remote); err == nil {
			for _, o := range l.Items {
				_, _ = p.Liqo.ResourceSlices(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, unheld, metav1.PatchOptions{})
				_ = p.Liqo.ResourceSlices(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{})
			}
		}
		if l, err := p.Liqo.Renews("").List(ctx, remote); err == nil {
			for _, o := range l.Items {
				_, _ = p.Liqo.Renews(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, unheld, metav1.PatchOptions{})
				_ = p.Liqo.Renews(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{})
			}
		}
	})
}

// addFinalizer and releaseFinalizer put testHold on a copy and take it
// off, through patch.
func addFinalizer(t *testing.T, patch func([]byte) error) {
	t.Helper()
	require.NoError(t, patch([]byte(`{"metadata":{"finalizers":["`+testHold+`"]}}`)))
}

func releaseFinalizer(t *testing.T, patch func([]byte) error) {
	t.Helper()
	require.NoError(t, patch([]byte(`{"metadata":{"finalizers":null}}`)))
}

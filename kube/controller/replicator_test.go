//go:build cluster

package controller

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/util/retry"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// authenticate runs the whole handshake of consumerID with providerID,
// both sides' Managers doing their parts, up to the consumer's kubeconfig
// Secret; it returns the consumer's tenant namespace on each side.
func authenticate(t testing.TB, p, c *kube.Cluster) (providerNS, consumerNS string) {
	t.Helper()
	ctx := labtest.Context(t)
	provNS, _, err := p.EnsureTenantNamespace(ctx, consumerID)
	require.NoError(t, err)
	consNS, _, err := c.EnsureTenantNamespace(ctx, providerID)
	require.NoError(t, err)
	_, err = p.EnsureNonceSecret(ctx, provNS.Name, consumerID)
	require.NoError(t, err)
	nonce := waitSecret(t, p, provNS.Name, kube.NonceSecretName, func(s *corev1.Secret) bool { return len(s.Data[kube.NonceField]) > 0 }).Data[kube.NonceField]
	_, _, err = c.EnsureSignedNonceSecret(ctx, consNS.Name, providerID, string(nonce))
	require.NoError(t, err)
	signed := waitSecret(t, c, consNS.Name, kube.SignedNonceSecretName, func(s *corev1.Secret) bool { return len(s.Data[kube.SignedNonceField]) > 0 })
	key, _, err := c.PrivateKey(ctx)
	require.NoError(t, err)
	tenant, err := kube.ForgeTenant(consumerID, provNS.Name, key, signed.Data[kube.SignedNonceField], "")
	require.NoError(t, err)
	_, _, err = p.ApplyTenant(ctx, tenant)
	require.NoError(t, err)
	accepted := waitTenant(t, p, provNS.Name, consumerID, statusFilled)
	identity, err := kube.ForgeIdentity(providerID, consNS.Name, accepted)
	require.NoError(t, err)
	_, _, err = c.ApplyIdentity(ctx, identity)
	require.NoError(t, err)
	waitSecret(t, c, consNS.Name, kube.KubeconfigSecretName(identity.Name), func(s *corev1.Secret) bool {
		return string(s.Data[kube.KubeconfigField]) != "" && s.Annotations[kube.RemoteTenantNamespace] == provNS.Name
	})
	return provNS.Name, consNS.Name
}

// replicated labels a local object for the provider (§10.1).
func replicated(provider string, extra map[string]string) map[string]string {
	l := map[string]string{kube.ReplicationLabel: "true", kube.RemoteIDLabel: provider, kube.RemoteClusterIDLabel: provider}
	for k, v := range extra {
		l[k] = v
	}
	return l
}

// The consumer's replicator (§10): local ResourceSlices and Renews labelled
// for the provider show up there with Liqo's labels and their spec, the
// provider's status comes back, the provider's own annotations survive a
// local update, a local deletion deletes the copy, a copy left behind while
// the consumer was down is deleted at start, and a slice for a provider
// this consumer has no kubeconfig for gets a Warning and nothing remote.
func TestReplicator(t *testing.T) {
	p, c := providerCluster(t), consumerCluster(t)
	cleanupReplicas(t, p, c)
	provider, err := New(p, Options{Provider: true})
	require.NoError(t, err)
	stopProvider := runManager(t, provider)
	first, err := New(c, Options{Consumer: true})
	require.NoError(t, err)
	stopFirst := runManager(t, first)
	provNS, consNS := authenticate(t, p, c)
	ctx := labtest.Context(t)
	remoteSlices, localSlices := p.Liqo.ResourceSlices(provNS), c.Liqo.ResourceSlices(consNS)
	remoteRenews, localRenews := p.Liqo.Renews(provNS), c.Liqo.Renews(consNS)

	// A copy left behind while the consumer was down, and one that is not
	// ours: only the first goes.
	stopFirst()
	orphanLabels := kube.ReplicaLabels(nil, consumerID)
	_, err = remoteSlices.Create(ctx, &authv1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "repl-orphan", Labels: orphanLabels},
		Spec: authv1beta1.ResourceSliceSpec{Class: "replicator-test"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = remoteSlices.Create(ctx, &authv1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "repl-foreign",
		Labels: kube.ReplicaLabels(nil, "someone-else")}, Spec: authv1beta1.ResourceSliceSpec{Class: "replicator-test"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = remoteSlices.Delete(context.Background(), "repl-foreign", metav1.DeleteOptions{}) })
	_, syncs := startManager(t, c, Options{Consumer: true})
	waitGone(t, kube.ListWatch(remoteSlices.List, remoteSlices.Watch, kube.ByName("repl-orphan")), &authv1beta1.ResourceSlice{}, "repl-orphan")

	// Replicated with exactly Liqo's labels and the local spec.
	slice := &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "repl-slice", Namespace: consNS,
			Labels:      replicated(providerID, map[string]string{"example.com/team": "a"}),
			Annotations: map[string]string{"example.com/note": "1"}},
		Spec: authv1beta1.ResourceSliceSpec{ConsumerClusterID: consumerID, ProviderClusterID: providerID, Class: "replicator-test",
			Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
	}
	_, err = localSlices.Create(ctx, slice, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = localSlices.Delete(context.Background(), slice.Name, metav1.DeleteOptions{}) })
	copied := waitRemoteSlice(t, p, provNS, slice.Name, func(got *authv1beta1.ResourceSlice) bool {
		local, err := localSlices.Get(ctx, slice.Name, metav1.GetOptions{})
		return err == nil && apiequality.Semantic.DeepEqual(local.Spec, got.Spec)
	})
	// As Liqo's crd-replicator labels its copies (remoteID kept).
	assert.Equal(t, map[string]string{"example.com/team": "a", kube.ReplicationLabel: "false", kube.ReplicatedLabel: "true",
		kube.OriginIDLabel: consumerID, kube.RemoteClusterIDLabel: consumerID, kube.RemoteIDLabel: providerID}, copied.Labels)
	assert.Equal(t, "1", copied.Annotations["example.com/note"])
	assert.Equal(t, resource.MustParse("1"), copied.Spec.Resources[corev1.ResourceCPU])

	renew := &authv1beta1.Renew{
		ObjectMeta: metav1.ObjectMeta{Name: "repl-renew", Namespace: consNS, Labels: replicated(providerID, nil)},
		Spec:       authv1beta1.RenewSpec{ConsumerClusterID: consumerID, IdentityType: authv1beta1.ControlPlaneIdentityType},
	}
	_, err = localRenews.Create(ctx, renew, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = localRenews.Delete(context.Background(), renew.Name, metav1.DeleteOptions{}) })
	renewCopy, err := kube.WaitFor(ctx, kube.ListWatch(remoteRenews.List, remoteRenews.Watch, kube.ByName(renew.Name)), "renew copy",
		func(*authv1beta1.Renew) (bool, error) { return true, nil })
	require.NoError(t, err)
	assert.Equal(t, map[string]string{kube.ReplicationLabel: "false", kube.ReplicatedLabel: "true",
		kube.OriginIDLabel: consumerID, kube.RemoteClusterIDLabel: consumerID, kube.RemoteIDLabel: providerID}, renewCopy.Labels)
	assert.Equal(t, renew.Spec, renewCopy.Spec)

	// The provider's status comes back: the slice's written by hand, the
	// Renew's by the provider's Renew writer (the Tenant's authParams).
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := remoteSlices.Get(ctx, slice.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Status.NodeLabels = map[string]string{"example.com/zone": "z1"}
		got.Status.Conditions = []authv1beta1.ResourceSliceCondition{{Type: authv1beta1.ResourceSliceConditionTypeResources,
			Status: authv1beta1.ResourceSliceConditionAccepted, Reason: "Test", LastTransitionTime: metav1.Now()}}
		_, err = remoteSlices.UpdateStatus(ctx, got, metav1.UpdateOptions{})
		return err
	}))
	_, err = kube.WaitFor(ctx, kube.ListWatch(localSlices.List, localSlices.Watch, kube.ByName(slice.Name)), "slice status back",
		func(got *authv1beta1.ResourceSlice) (bool, error) {
			return got.Status.NodeLabels["example.com/zone"] == "z1" && len(got.Status.Conditions) == 1, nil
		})
	require.NoError(t, err)
	tenant, err := p.Liqo.Tenants(provNS).Get(ctx, consumerID, metav1.GetOptions{})
	require.NoError(t, err)
	_, err = kube.WaitFor(ctx, kube.ListWatch(localRenews.List, localRenews.Watch, kube.ByName(renew.Name)), "renew status back",
		func(got *authv1beta1.Renew) (bool, error) {
			return got.Status.AuthParams != nil && string(got.Status.AuthParams.SignedCRT) == string(tenant.Status.AuthParams.SignedCRT), nil
		})
	require.NoError(t, err)

	// The provider's annotation survives a local update.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := remoteSlices.Get(ctx, slice.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Annotations[kube.CordonTenantAnnotation] = "true"
		_, err = remoteSlices.Update(ctx, got, metav1.UpdateOptions{})
		return err
	}))
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := localSlices.Get(ctx, slice.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Annotations["example.com/note"] = "2"
		got.Spec.Resources[corev1.ResourceCPU] = resource.MustParse("2")
		_, err = localSlices.Update(ctx, got, metav1.UpdateOptions{})
		return err
	}))
	updated := waitRemoteSlice(t, p, provNS, slice.Name, func(got *authv1beta1.ResourceSlice) bool {
		return got.Annotations["example.com/note"] == "2"
	})
	assert.Equal(t, "true", updated.Annotations[kube.CordonTenantAnnotation])
	assert.Equal(t, resource.MustParse("2"), updated.Spec.Resources[corev1.ResourceCPU])

	// Deleted locally: the copies go.
	require.NoError(t, localSlices.Delete(ctx, slice.Name, metav1.DeleteOptions{}))
	require.NoError(t, localRenews.Delete(ctx, renew.Name, metav1.DeleteOptions{}))
	waitGone(t, kube.ListWatch(remoteSlices.List, remoteSlices.Watch, kube.ByName(slice.Name)), &authv1beta1.ResourceSlice{}, slice.Name)
	waitGone(t, kube.ListWatch(remoteRenews.List, remoteRenews.Watch, kube.ByName(renew.Name)), &authv1beta1.Renew{}, renew.Name)

	// A provider this consumer never authenticated with: a Warning that
	// says so, and nothing written anywhere on the provider.
	ghost := &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "repl-ghost", Namespace: consNS, Labels: replicated("ghost-provider", nil)},
		Spec:       authv1beta1.ResourceSliceSpec{Class: "replicator-test"},
	}
	_, err = localSlices.Create(ctx, ghost, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = localSlices.Delete(context.Background(), ghost.Name, metav1.DeleteOptions{}) })
	ev := waitEvent(t, c, authv1beta1.ResourceSliceKind, consNS, ghost.Name, ReasonKubeconfigNotFound)
	assert.Equal(t, corev1.EventTypeWarning, ev.Type)
	assert.Contains(t, ev.Message, "ghost-provider")
	assert.Contains(t, ev.Message, "authenticate")
	all, err := p.Liqo.ResourceSlices("").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + ghost.Name})
	require.NoError(t, err)
	assert.Empty(t, all.Items)

	_, err = remoteSlices.Get(ctx, "repl-foreign", metav1.GetOptions{})
	assert.NoError(t, err, "a copy another consumer made is left alone")

	// The provider's admin takes the consumer's rights away (with the
	// provider's controller stopped: it would make the binding again): a
	// Warning says what is missing, once, and the copy is not retried in a
	// loop; given back, the next change of the slice brings the copy.
	stopProvider()
	bindings := p.Kube.RbacV1().RoleBindings(provNS)
	binding, err := bindings.Get(ctx, kube.RoleBindingName(kube.RemoteControlPlaneClusterRole), metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, bindings.Delete(ctx, binding.Name, metav1.DeleteOptions{}))
	refused := &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "repl-refused", Namespace: consNS, Labels: replicated(providerID, nil)},
		Spec:       authv1beta1.ResourceSliceSpec{Class: "replicator-test"},
	}
	_, err = localSlices.Create(ctx, refused, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = localSlices.Delete(context.Background(), refused.Name, metav1.DeleteOptions{}) })
	ev = waitEvent(t, c, authv1beta1.ResourceSliceKind, consNS, refused.Name, ReasonReplicationForbidden)
	assert.Equal(t, corev1.EventTypeWarning, ev.Type)
	for _, want := range []string{providerID, "forbidden", consumerID, "create", "resourceslices/status", provNS, kube.RemoteControlPlaneClusterRole} {
		assert.Contains(t, ev.Message, want)
	}
	// A change of the slice tries again: refused again, not told again.
	key := providerID + "/" + refused.Name
	seen := syncs.count()
	touchSlice(t, localSlices, refused.Name, "1")
	syncs.waitSyncAfter(t, seen, "replicator-"+strings.ToLower(authv1beta1.ResourceSliceKind), key)
	// Events are written in order: once a later Warning is there, a second
	// ReplicationForbidden would be too.
	barrier := &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "repl-barrier", Namespace: consNS, Labels: replicated("ghost-provider-2", nil)},
		Spec:       authv1beta1.ResourceSliceSpec{Class: "replicator-test"},
	}
	_, err = localSlices.Create(ctx, barrier, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = localSlices.Delete(context.Background(), barrier.Name, metav1.DeleteOptions{}) })
	waitEvent(t, c, authv1beta1.ResourceSliceKind, consNS, barrier.Name, ReasonKubeconfigNotFound)
	forbidden, err := c.Kube.CoreV1().Events(consNS).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
		"involvedObject.kind": authv1beta1.ResourceSliceKind, "involvedObject.name": refused.Name, "reason": ReasonReplicationForbidden}.String()})
	require.NoError(t, err)
	require.Len(t, forbidden.Items, 1, "told once")
	assert.EqualValues(t, 1, forbidden.Items[0].Count, "told once")
	assert.Zero(t, syncs.failures("replicator-"+strings.ToLower(authv1beta1.ResourceSliceKind), key),
		"a refusal is not an error retried with the rate limiter's back-off")

	binding.ResourceVersion, binding.UID = "", ""
	_, err = bindings.Create(ctx, binding, metav1.CreateOptions{})
	require.NoError(t, err)
	startManager(t, p, Options{Provider: true}) // answers the slices, as before it stopped
	touchSlice(t, localSlices, refused.Name, "2")
	waitRemoteSlice(t, p, provNS, refused.Name, func(*authv1beta1.ResourceSlice) bool { return true })
}

// touchSlice changes an annotation of a local slice (a change the
// replicator acts on).
func touchSlice(t testing.TB, slices *gentype.ClientWithList[*authv1beta1.ResourceSlice, *authv1beta1.ResourceSliceList], name, value string) {
	t.Helper()
	patch := []byte(`{"metadata":{"annotations":{"example.com/touch":"` + value + `"}}}`)
	_, err := slices.Patch(labtest.Context(t), name, types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
}

func waitRemoteSlice(t testing.TB, p *kube.Cluster, namespace, name string, cond func(*authv1beta1.ResourceSlice) bool) *authv1beta1.ResourceSlice {
	t.Helper()
	slices := p.Liqo.ResourceSlices(namespace)
	got, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(slices.List, slices.Watch, kube.ByName(name)), "slice "+namespace+"/"+name,
		func(s *authv1beta1.ResourceSlice) (bool, error) { return cond(s), nil })
	require.NoError(t, err)
	return got
}

//go:build cluster

package flows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// replicated is what a consumer's replicator leaves after copying a
// ResourceSlice and the Identity's Renew to the provider: both copies
// there, the local objects and the kubeconfig Secret held by Liqo's
// finalizers; the slice is then deleted (Terminating, held).
type replicated struct {
	consumerNS, providerNS, identity, slice string
}

// replicatedPair authenticates a pair and replicates by hand.
func replicatedPair(t *testing.T, providerID, consumerID string) (context.Context, *kube.Cluster, *kube.Cluster, replicated) {
	t.Helper()
	provider, consumer := pair(t, providerID, consumerID)
	ctx := labtest.Context(t)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	r := replicateByHand(t, ctx, provider, consumer, providerID, consumerID)
	t.Cleanup(func() { releaseByHand(consumer, r) })
	return ctx, provider, consumer, r
}

func replicateByHand(t *testing.T, ctx context.Context, provider, consumer *kube.Cluster, providerID, consumerID string) replicated {
	t.Helper()
	id, err := consumer.ControlPlaneIdentityFor(ctx, providerID)
	require.NoError(t, err)
	secret, err := consumer.KubeconfigSecretFor(ctx, providerID)
	require.NoError(t, err)
	r := replicated{consumerNS: id.Namespace, providerNS: secret.Annotations[kube.RemoteTenantNamespace], identity: id.Name, slice: "guarded-slice"}
	require.NotEmpty(t, r.providerNS)
	localLabels := map[string]string{kube.ReplicationLabel: "true", kube.RemoteIDLabel: providerID, kube.RemoteClusterIDLabel: providerID}
	held := []string{kube.ReplicaFinalizer}

	_, err = consumer.Liqo.ResourceSlices(r.consumerNS).Create(ctx, &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: r.slice, Labels: localLabels, Finalizers: held},
		Spec:       authv1beta1.ResourceSliceSpec{Class: "replica-test"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = provider.Liqo.ResourceSlices(r.providerNS).Create(ctx, &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: r.slice, Labels: kube.ReplicaLabels(localLabels, consumerID)},
		Spec:       authv1beta1.ResourceSliceSpec{Class: "replica-test"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = consumer.Liqo.Renews(r.consumerNS).Create(ctx, &authv1beta1.Renew{
		ObjectMeta: metav1.ObjectMeta{Name: id.Name, Labels: localLabels, Finalizers: held,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(id, authv1beta1.GroupVersion.WithKind(authv1beta1.IdentityKind))}},
		Spec: authv1beta1.RenewSpec{ConsumerClusterID: consumerID, IdentityType: authv1beta1.ControlPlaneIdentityType}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = provider.Liqo.Renews(r.providerNS).Create(ctx, &authv1beta1.Renew{
		ObjectMeta: metav1.ObjectMeta{Name: id.Name, Labels: kube.ReplicaLabels(localLabels, consumerID)},
		Spec:       authv1beta1.RenewSpec{ConsumerClusterID: consumerID, IdentityType: authv1beta1.ControlPlaneIdentityType}}, metav1.CreateOptions{})
	require.NoError(t, err)
	patch, _ := kube.FinalizerPatch(secret, kube.ReplicatorSecretFinalizer, true)
	_, err = consumer.Kube.CoreV1().Secrets(secret.Namespace).Patch(ctx, secret.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, consumer.Liqo.ResourceSlices(r.consumerNS).Delete(ctx, r.slice, metav1.DeleteOptions{}))
	return r
}

// copies lists the copies left on the provider, by kind and name.
func (r replicated) copies(t *testing.T, ctx context.Context, provider *kube.Cluster) []string {
	t.Helper()
	var out []string
	slices, err := provider.Liqo.ResourceSlices(r.providerNS).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, s := range slices.Items {
		out = append(out, "resourceslice/"+s.Name)
	}
	renews, err := provider.Liqo.Renews(r.providerNS).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, x := range renews.Items {
		out = append(out, "renew/"+x.Name)
	}
	return out
}

// locals lists what is left on the consumer for the provider.
func (r replicated) locals(t *testing.T, ctx context.Context, consumer *kube.Cluster, providerID string) []string {
	t.Helper()
	var out []string
	for k := range consumerState(t, ctx, consumer, providerID) {
		out = append(out, k)
	}
	if _, err := consumer.Liqo.ResourceSlices(r.consumerNS).Get(ctx, r.slice, metav1.GetOptions{}); err == nil {
		out = append(out, "resourceslice/"+r.slice)
	}
	if _, err := consumer.Liqo.Renews(r.consumerNS).Get(ctx, r.identity, metav1.GetOptions{}); err == nil {
		out = append(out, "renew/"+r.identity)
	}
	return out
}

// A replicator holds the consumer's objects while their copies are on the
// provider (the controller's Lease is held, but it never acts): the check
// for leftovers waits, then fails saying what holds them; it never reports
// "no leftovers", and nothing is deleted.
func TestUnauthenticateNeverSaysNoLeftoversWhileACopyRemains(t *testing.T) {
	ctx, provider, consumer, r := replicatedPair(t, "rg-provider-a", "rg-consumer-a")
	holdControllerLease(t, ctx, consumer, time.Now(), 3600)
	copies, locals := r.copies(t, ctx, provider), r.locals(t, ctx, consumer, "rg-provider-a")

	log := &labtest.EventLog{}
	_, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: 3 * time.Second}, log.Sink)
	require.Error(t, err)
	for _, want := range []string{"ResourceSlices are being deleted", kube.ReplicaFinalizer, "rg-provider-a", string(flows.EngineController), "--one-sided"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.False(t, log.Said("No leftover resourceslices"), "no leftovers reported while a copy remains")
	assert.ElementsMatch(t, copies, r.copies(t, ctx, provider), "nothing deleted on the provider")
	assert.ElementsMatch(t, locals, r.locals(t, ctx, consumer, "rg-provider-a"), "nothing deleted on the consumer")
}

// No replicator runs on the consumer: unauthenticate does its part, in its
// order: the copies on the provider go, then the slice, the Renew and the
// kubeconfig Secret, then the Identity and the Tenant.
func TestUnauthenticateDeletesTheCopiesWhenNoReplicatorRuns(t *testing.T) {
	ctx, provider, consumer, r := replicatedPair(t, "rg-provider-b", "rg-consumer-b")

	log := &labtest.EventLog{}
	_, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: 30 * time.Second}, log.Sink)
	require.NoError(t, err)
	assert.True(t, log.Said("no replicator runs on the consumer"))
	assert.True(t, log.Said("No leftover resourceslices"))
	assert.Empty(t, r.copies(t, ctx, provider), "the copies were deleted")
	assert.Empty(t, r.locals(t, ctx, consumer, "rg-provider-b"))
	assert.NotContains(t, providerState(t, ctx, provider, "rg-consumer-b"), "tenant")
}

// The provider is gone (one-sided): the consumer's objects held for it
// are let go without reaching it.
func TestUnauthenticateConsumerOnlyLetsReplicasGo(t *testing.T) {
	ctx, provider, consumer, r := replicatedPair(t, "rg-provider-c", "rg-consumer-c")
	copies := r.copies(t, ctx, provider)

	log := &labtest.EventLog{}
	_, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, ProviderID: "rg-provider-c", StepTimeout: 30 * time.Second}, log.Sink)
	require.NoError(t, err)
	assert.True(t, log.Said("the provider is gone"))
	assert.Empty(t, r.locals(t, ctx, consumer, "rg-provider-c"))
	assert.ElementsMatch(t, copies, r.copies(t, ctx, provider), "the provider is not reached")
}

// releaseByHand lets go what a failed test left held.
func releaseByHand(consumer *kube.Cluster, r replicated) {
	ctx := context.Background()
	unheld := []byte(`{"metadata":{"finalizers":null}}`)
	_, _ = consumer.Liqo.ResourceSlices(r.consumerNS).Patch(ctx, r.slice, types.MergePatchType, unheld, metav1.PatchOptions{})
	_, _ = consumer.Liqo.Renews(r.consumerNS).Patch(ctx, r.identity, types.MergePatchType, unheld, metav1.PatchOptions{})
	_, _ = consumer.Kube.CoreV1().Secrets(r.consumerNS).Patch(ctx, kube.KubeconfigSecretName(r.identity), types.MergePatchType, unheld, metav1.PatchOptions{})
}

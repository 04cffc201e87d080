//go:build cluster

package liqointerop_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// sliceTimeout bounds one handshake plus one ResourceSlice against real
// Liqo, peers and replicator start included.
const sliceTimeout = 4 * time.Minute

// A Liqo consumer of every release gets a ResourceSlice from this
// project's provider: Liqo's local ResourceSlice controller fills the CSR,
// Liqo's own crd-replicator copies the slice to our provider with the
// control-plane kubeconfig, our provider signs it and fills the status, the
// replicator brings the status back, and Liqo's identity creator and
// Identity controller turn it into a kubeconfig that works on our provider
// as the slice's user, in the consumer's group.
func TestLiqoConsumerSliceOurProvider(t *testing.T) {
	forEachRelease(t, func(t *testing.T, release string) {
		p := startPair(t, release, sliceTimeout, liqoConsumes, "liqo-slice-consumer", "ours-slice-provider")
		ctx, consumer, provider, liqoID, ourID, slice := p.ctx, p.liqo, p.ours, p.liqoID, p.ourID, releaseID("liqo-asks", release)
		_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
		require.NoError(t, err)

		// What a Liqo consumer runs besides its controller-manager, and our
		// provider's controllers as liqo-auth-controller runs them.
		realliqov1.StartReplicator(t, p.liqoLab.KubeconfigPath, realliqov1.ReplicatorOptions{Release: release, ClusterID: liqoID})
		withDefaultStorageClass(t, ctx, provider)
		liqotest.RunOurManager(t, ctx, provider, controller.Options{Provider: true, APIServerOverride: p.ourLab.Config.Host, SliceOffer: offerOptions(t)})

		// The slice, as `liqoctl create resourceslice` makes it.
		consNS := kube.TenantNamespaceName(ourID)
		asked := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}
		_, err = consumer.Liqo.ResourceSlices(consNS).Create(ctx,
			kube.ForgeResourceSlice(slice, consNS, ourID, authv1beta1.ResourceSliceClassDefault, asked, true), metav1.CreateOptions{})
		require.NoError(t, err)

		// The answer comes back to the consumer ...
		local := liqotest.WaitSlice(t, ctx, consumer, consNS, slice, "our provider's answer, replicated back", liqotest.SliceAccepted)
		assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(local, authv1beta1.ResourceSliceConditionTypeResources))
		assert.Equal(t, liqoID, local.Spec.ConsumerClusterID, "filled by Liqo's consumer")
		assert.Contains(t, liqotest.Managers(local), liqotest.ReplicatorManager+"/status", "the status was copied back by Liqo's crd-replicator")
		cn, org := liqotest.CSRSubject(t, local)
		assert.Equal(t, kube.ResourceSliceUser(slice, liqoID), cn)
		assert.Equal(t, []string{liqoID}, org)

		// ... from the copy our provider answered.
		provNS := kube.TenantNamespaceName(liqoID)
		remoteCopy, err := provider.Liqo.ResourceSlices(provNS).Get(ctx, slice, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "true", remoteCopy.Labels[kube.ReplicatedLabel])
		assert.Equal(t, liqoID, remoteCopy.Labels[kube.OriginIDLabel])
		assert.Equal(t, liqoID, remoteCopy.Labels[kube.RemoteClusterIDLabel])
		assert.Contains(t, liqotest.Managers(remoteCopy), liqotest.ReplicatorManager+"/", "the copy was made by Liqo's crd-replicator")
		assert.NotContains(t, liqotest.Managers(remoteCopy), liqoManager+"/status", "no Liqo provider answered")
		assert.Equal(t, remoteCopy.Status.AuthParams.SignedCRT, local.Status.AuthParams.SignedCRT)
		assert.Equal(t, p.ourLab.Config.Host, local.Status.AuthParams.APIServer)
		// What it asked, and Liqo's defaults (--default-node-resources) for the rest.
		assert.Equal(t, "cpu=2,ephemeral-storage=20Gi,memory=4Gi,pods=110", controller.FormatResourceList(local.Status.Resources))
		assertLiqosFace(t, local)

		// Liqo's identity creator and Identity controller made the kubeconfig ...
		id, s := liqotest.WaitIdentityKubeconfig(t, ctx, consumer, consNS, kube.ResourceSliceIdentityName(slice))
		assert.Equal(t, authv1beta1.ResourceSliceIdentityType, id.Spec.Type)
		assert.Equal(t, slice, id.Labels[kube.ResourceSliceNameLabel])
		assert.Contains(t, liqotest.Managers(id), liqoManager+"/")
		assert.Equal(t, kube.KubeconfigSecretName(id.Name), s.Name)
		assert.Contains(t, liqotest.Managers(s), liqoManager+"/")

		// ... which gets into our provider as the slice's user, in the
		// consumer's group.
		user, groups := liqotest.WhoAmI(t, ctx, s)
		assert.Equal(t, kube.ResourceSliceUser(slice, liqoID), user)
		assert.Contains(t, groups, liqoID)

		t.Run("namespacemap", func(t *testing.T) { namespaceMapRoundTrip(t, ctx, consumer, provider, liqoID, ourID) })
		lifeOfLiqoConsumerSlice(t, ctx, consumer, provider, liqoID, ourID, slice, id.Name)
	})
}

// lifeOfLiqoConsumerSlice: what a Liqo consumer sees of our provider after
// the first answer, as with a Liqo provider. A slice without amounts gets
// the defaults; a CreateOrUpdate with new amounts (liqoctl create
// resourceslice run again) updates the grant; draining the Tenant takes
// away what the consumer could use, as Liqo's drain does (§5.5): the
// copies replicated to our provider (slices and the NamespaceMap of
// namespaceMapRoundTrip) go and the consumer's control-plane
// kubeconfig is authorized for nothing there, while Liqo keeps the slice's
// Identity (its Authentication stays Accepted).
func lifeOfLiqoConsumerSlice(t *testing.T, ctx context.Context, consumer, provider *kube.Cluster, liqoID, ourID, slice, identity string) {
	t.Helper()
	consNS, provNS := kube.TenantNamespaceName(ourID), kube.TenantNamespaceName(liqoID)
	bare := slice + "-nothing" // slice names are unique on a consumer
	_, err := consumer.Liqo.ResourceSlices(consNS).Create(ctx,
		kube.ForgeResourceSlice(bare, consNS, ourID, authv1beta1.ResourceSliceClassDefault, nil, false), metav1.CreateOptions{})
	require.NoError(t, err)
	got := liqotest.WaitSlice(t, ctx, consumer, consNS, bare, "the defaults", func(rs *authv1beta1.ResourceSlice) bool {
		return liqotest.SliceAccepted(rs) && len(rs.Status.Resources) > 0
	})
	assert.Equal(t, "cpu=4,ephemeral-storage=20Gi,memory=8Gi,pods=110", controller.FormatResourceList(got.Status.Resources))

	again := mustSlice(t, ctx, consumer, consNS, slice)
	again.Spec.Resources = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourcePods: resource.MustParse("20")}
	_, err = consumer.Liqo.ResourceSlices(consNS).Update(ctx, again, metav1.UpdateOptions{})
	require.NoError(t, err)
	got = liqotest.WaitSlice(t, ctx, consumer, consNS, slice, "the new grant", func(rs *authv1beta1.ResourceSlice) bool {
		return rs.Status.Resources.Cpu().Equal(resource.MustParse("3"))
	})
	assert.Equal(t, "cpu=3,ephemeral-storage=20Gi,memory=8Gi,pods=20", controller.FormatResourceList(got.Status.Resources))

	tenant, err := provider.TenantFor(ctx, provNS, liqoID)
	require.NoError(t, err)
	tenant.Spec.TenantCondition = authv1beta1.TenantConditionDrained
	_, err = provider.Liqo.Tenants(provNS).Update(ctx, tenant, metav1.UpdateOptions{})
	require.NoError(t, err)
	copies := provider.Liqo.ResourceSlices(provNS)
	for _, name := range []string{slice, bare} {
		require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(copies.List, copies.Watch, kube.ByName(name)), &authv1beta1.ResourceSlice{},
			"the drain deletes the copy of "+name))
	}
	maps := dynamicFor(t, provider).Resource(namespaceMaps).Namespace(provNS)
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(maps.List, maps.Watch, kube.ByName(namespaceMapName(liqoID))), &unstructured.Unstructured{},
		"the drain deletes the copy of the NamespaceMap"))
	s, err := consumer.KubeconfigSecretFor(ctx, ourID)
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	v, err := flows.VerifyConfig(ctx, cfg, provNS)
	require.NoError(t, err)
	assert.Empty(t, v.Allowed, "the drain unbound the consumer")
	local := mustSlice(t, ctx, consumer, consNS, slice)
	assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(local, authv1beta1.ResourceSliceConditionTypeAuthentication))
	_, err = consumer.Liqo.Identities(consNS).Get(ctx, identity, metav1.GetOptions{})
	assert.NoError(t, err, "Liqo keeps the slice's Identity")
	drainedTenantRefused(t, ctx, consumer, provider, liqoID, ourID)
}

// drainedTenantRefused: authenticate again on a Drained Tenant is refused
// before any write with the command that re-activates it (liqoctl's
// re-applied spec would re-activate it; keeping the provider's condition
// and reporting success would leave the consumer an Identity without
// rights). Once activated, authenticate binds the consumer again.
func drainedTenantRefused(t *testing.T, ctx context.Context, consumer, provider *kube.Cluster, consumerID, providerID string) {
	t.Helper()
	provNS := kube.TenantNamespaceName(consumerID)
	before, err := provider.TenantFor(ctx, provNS, consumerID)
	require.NoError(t, err)
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	var drained *flows.DrainedTenantError
	require.ErrorAs(t, err, &drained)
	assert.Contains(t, err.Error(), "is Drained on the provider: the consumer has no rights there")
	assert.Contains(t, flows.Explain(err).Hint, "run `liqo-auth-tui activate tenant "+before.Name+"` on the provider")
	after, err := provider.TenantFor(ctx, provNS, consumerID)
	require.NoError(t, err)
	assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "nothing written")

	require.NoError(t, flows.ActivateTenant(ctx, provider, before.Name, nil))
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	v, err := flows.Verify(ctx, consumer, providerID, nil)
	require.NoError(t, err)
	assert.Contains(t, v.Allowed, "list resourceslices.authentication.liqo.io -n "+provNS, "activated and authenticated: bound again")
}

// This project's consumer gets a ResourceSlice from a Liqo provider of
// every release: `liqo-auth-tui create resourceslice`
// (flows.CreateResourceSlice) makes it, our consumer's controllers fill the
// CSR and replicate it, Liqo's remote ResourceSlice controller signs it, and
// our kubeconfig then works on the Liqo provider as the slice's user, in the
// consumer's group.
func TestOurConsumerSliceLiqoProvider(t *testing.T) {
	forEachRelease(t, func(t *testing.T, release string) {
		p := startPair(t, release, sliceTimeout, liqoProvides, "liqo-slice-provider", "ours-slice-consumer", offerArgs...)
		ctx, provider, consumer, liqoID, ourID, slice := p.ctx, p.liqo, p.ours, p.liqoID, p.ourID, releaseID("ours-asks", release)
		withDefaultStorageClass(t, ctx, provider)
		_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
		require.NoError(t, err)

		var n notes
		st, err := flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: slice, ProviderID: liqoID, CPU: "2", Memory: "4Gi", CreateVirtualNode: true},
			flows.SliceOptions{Wait: true, Provider: provider}, n.sink)
		require.NoError(t, err)
		assert.Contains(t, n.all(), "consumer side served by "+string(flows.EngineInProcess))
		assert.Contains(t, n.all(), "provider side served by "+string(flows.EngineLiqo))
		assert.Contains(t, n.all(), "Liqo's controller-manager on provider "+liqoID+" answers it.")
		// Without the provider's kubeconfig (manual mode), the consumer's
		// credentials for it still see Liqo there.
		answer, err := flows.SliceAnswerer(ctx, consumer, liqoID, nil, flows.EngineOptions{})
		require.NoError(t, err)
		assert.Equal(t, handshake.AnswererLiqo, answer.Answerer)
		assert.Equal(t, string(authv1beta1.ResourceSliceConditionAccepted), st.Authentication)
		assert.Equal(t, string(authv1beta1.ResourceSliceConditionAccepted), st.Resources)
		assert.Equal(t, map[string]string{"cpu": "2", "memory": "4Gi"}, st.Granted)
		consNS := kube.TenantNamespaceName(liqoID)
		require.Equal(t, consNS+"/"+kube.KubeconfigSecretName(kube.ResourceSliceIdentityName(slice)), st.KubeconfigSecret)

		// The copy on the Liqo provider: our replicator's labels, Liqo's answer.
		remoteCopy, err := provider.Liqo.ResourceSlices(kube.TenantNamespaceName(ourID)).Get(ctx, slice, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "true", remoteCopy.Labels[kube.ReplicatedLabel])
		assert.Equal(t, ourID, remoteCopy.Labels[kube.OriginIDLabel])
		assert.Equal(t, ourID, remoteCopy.Labels[kube.RemoteClusterIDLabel])
		assert.Contains(t, liqotest.Managers(remoteCopy), liqoManager+"/status", "Liqo's remote ResourceSlice controller answered")
		cn, org := liqotest.CSRSubject(t, remoteCopy)
		assert.Equal(t, kube.ResourceSliceUser(slice, ourID), cn)
		assert.Equal(t, []string{ourID}, org)
		require.NotNil(t, remoteCopy.Status.AuthParams)
		assert.Equal(t, p.liqoLab.Config.Host, remoteCopy.Status.AuthParams.APIServer)
		assertLiqosFace(t, remoteCopy)
		assertLiqosFace(t, mustSlice(t, ctx, consumer, consNS, slice))

		// Our Identity and kubeconfig get into the Liqo provider as the slice's
		// user, in the consumer's group.
		_, s := liqotest.WaitIdentityKubeconfig(t, ctx, consumer, consNS, kube.ResourceSliceIdentityName(slice))
		assert.Equal(t, remoteCopy.Status.AuthParams.SignedCRT, mustSlice(t, ctx, consumer, consNS, slice).Status.AuthParams.SignedCRT)
		user, groups := liqotest.WhoAmI(t, ctx, s)
		assert.Equal(t, kube.ResourceSliceUser(slice, ourID), user)
		assert.Contains(t, groups, ourID)
	})
}

func mustSlice(t *testing.T, ctx context.Context, c *kube.Cluster, namespace, name string) *authv1beta1.ResourceSlice {
	t.Helper()
	rs, err := c.Liqo.ResourceSlices(namespace).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, rs.Status.AuthParams)
	return rs
}

//go:build cluster

package legacylab_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/liqolegacy"
)

// What Liqo 0.x's authentication leaves on both sides (§10) is listed and
// removed; the consumer's old certificate still authenticates afterwards
// but is authorized for nothing in its former tenant namespace — the
// `kubectl auth can-i --list` check of the issue, as that user.
func TestLegacyLeftoversRemoved(t *testing.T) {
	ctx := legacyContext(t)
	p := startLegacyPair(t, ctx)
	_, err := p.consumer.ApplyLegacyPeer(ctx, p.info, kube.LegacyPeerOptions{})
	require.NoError(t, err)
	st, err := p.consumer.WaitLegacyAuthenticated(ctx, providerID)
	require.NoError(t, err)
	id, err := p.consumer.LegacyIdentityFor(ctx, providerID)
	require.NoError(t, err)
	asConsumer, err := kubernetes.NewForConfig(id.Config)
	require.NoError(t, err)
	require.True(t, liqolegacy.CanCreateResourceRequests(t, ctx, id.Config, st.RemoteTenantNamespace), "the identity works before the removal")

	remove, kept, err := p.consumer.LegacyConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, kept, "this tool created the ForeignCluster")
	assert.ElementsMatch(t, []kube.LegacyObject{
		{Kind: "ForeignCluster", Name: providerName},
		{Kind: "Secret", Namespace: "liqo", Name: kube.LegacyRemoteTokenPrefix + providerID},
		{Kind: "Secret", Namespace: id.Namespace, Name: id.Name},
		{Kind: "Namespace", Name: st.LocalTenantNamespace},
	}, remove)
	providerSide, err := p.provider.LegacyProviderLeftovers(ctx, consumerID)
	require.NoError(t, err)
	var csrs int
	for _, o := range providerSide {
		if o.Kind == "CertificateSigningRequest" {
			csrs++
		}
	}
	assert.Equal(t, 1, csrs, "the CSR the provider signed for the consumer: %v", providerSide)
	for _, want := range []kube.LegacyObject{
		{Kind: "Namespace", Name: st.RemoteTenantNamespace},
		{Kind: "RoleBinding", Namespace: st.RemoteTenantNamespace, Name: kube.LegacyBasicBindingName},
		{Kind: "Secret", Namespace: st.RemoteTenantNamespace, Name: "liqo-remote-certificate"},
		{Kind: "Secret", Namespace: "liqo", Name: kube.LegacyRemoteTokenPrefix + consumerID}, // originClusterToken (§2.4 step 7)
	} {
		assert.Contains(t, providerSide, want)
	}
	assert.Equal(t, "Secret liqo/"+kube.LegacyRemoteTokenPrefix+providerID, kube.LegacyObject{Kind: "Secret", Namespace: "liqo", Name: kube.LegacyRemoteTokenPrefix + providerID}.String())

	changes, err := p.consumer.DeleteLegacyObjects(ctx, remove)
	require.NoError(t, err)
	assert.Equal(t, "ForeignCluster "+providerName+" deleted", changes[0].String(), "the ForeignCluster first: Liqo asks for no new identity")
	changes, err = p.provider.DeleteLegacyObjects(ctx, providerSide)
	require.NoError(t, err)
	for _, ch := range changes {
		assert.Equal(t, kube.Deleted, ch.Action, ch.Object)
	}

	remove, kept, err = p.consumer.LegacyConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, remove)
	assert.Empty(t, kept)
	providerSide2, err := p.provider.LegacyProviderLeftovers(ctx, consumerID)
	require.NoError(t, err)
	assert.Empty(t, providerSide2)
	again, err := p.provider.DeleteLegacyObjects(ctx, providerSide)
	require.NoError(t, err, "deleting again is harmless")
	for _, ch := range again {
		assert.Equal(t, kube.Unchanged, ch.Action, ch.Object)
	}

	// The old certificate: still a valid client certificate, granted nothing.
	assert.False(t, liqolegacy.CanCreateResourceRequests(t, ctx, id.Config, st.RemoteTenantNamespace))
	rules, err := asConsumer.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: st.RemoteTenantNamespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for _, r := range rules.Status.ResourceRules {
		// What every authenticated user may do (system:basic-user and friends).
		for _, g := range r.APIGroups {
			assert.Contains(t, []string{"authentication.k8s.io", "authorization.k8s.io"}, g, "rule %+v left to the old identity", r)
		}
	}
}

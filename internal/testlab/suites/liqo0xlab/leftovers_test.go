//go:build cluster

package liqo0xlab_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// What Liqo 0.x's authentication leaves on both sides (§10) is listed and
// removed; the consumer's old certificate still authenticates afterwards
// but is authorized for nothing in its former tenant namespace — the
// `kubectl auth can-i --list` check of the issue, as that user.
func TestLiqo0xLeftoversRemoved(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)
	_, err := liqo0x.On(p.consumer).ApplyPeer(ctx, p.info, liqo0x.PeerOptions{})
	require.NoError(t, err)
	st, err := liqo0x.On(p.consumer).WaitAuthenticated(ctx, providerID)
	require.NoError(t, err)
	id, err := liqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	asConsumer, err := kubernetes.NewForConfig(id.Config)
	require.NoError(t, err)
	require.True(t, realliqo0x.CanCreateResourceRequests(t, ctx, id.Config, st.RemoteTenantNamespace), "the identity works before the removal")

	remove, kept, err := liqo0x.On(p.consumer).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, kept, "this tool created the ForeignCluster")
	assert.ElementsMatch(t, []liqo0x.Object{
		{Kind: "ForeignCluster", Name: providerName},
		{Kind: "Secret", Namespace: "liqo", Name: liqo0x.RemoteTokenPrefix + providerID},
		{Kind: "Secret", Namespace: id.Namespace, Name: id.Name},
		{Kind: "Namespace", Name: st.LocalTenantNamespace},
	}, remove)
	providerSide, err := liqo0x.On(p.provider).ProviderLeftovers(ctx, consumerID)
	require.NoError(t, err)
	var csrs int
	for _, o := range providerSide {
		if o.Kind == "CertificateSigningRequest" {
			csrs++
		}
	}
	assert.Equal(t, 1, csrs, "the CSR the provider signed for the consumer: %v", providerSide)
	for _, want := range []liqo0x.Object{
		{Kind: "Namespace", Name: st.RemoteTenantNamespace},
		{Kind: "RoleBinding", Namespace: st.RemoteTenantNamespace, Name: liqo0x.BasicBindingName},
		{Kind: "Secret", Namespace: st.RemoteTenantNamespace, Name: "liqo-remote-certificate"},
		{Kind: "Secret", Namespace: "liqo", Name: liqo0x.RemoteTokenPrefix + consumerID}, // originClusterToken (§2.4 step 7)
	} {
		assert.Contains(t, providerSide, want)
	}
	assert.Equal(t, "Secret liqo/"+liqo0x.RemoteTokenPrefix+providerID, liqo0x.Object{Kind: "Secret", Namespace: "liqo", Name: liqo0x.RemoteTokenPrefix + providerID}.String())

	changes, err := liqo0x.On(p.consumer).DeleteObjects(ctx, remove)
	require.NoError(t, err)
	assert.Equal(t, "ForeignCluster "+providerName+" deleted", changes[0].String(), "the ForeignCluster first: Liqo asks for no new identity")
	changes, err = liqo0x.On(p.provider).DeleteObjects(ctx, providerSide)
	require.NoError(t, err)
	for _, ch := range changes {
		assert.Equal(t, kube.Deleted, ch.Action, ch.Object)
	}

	remove, kept, err = liqo0x.On(p.consumer).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, remove)
	assert.Empty(t, kept)
	providerSide2, err := liqo0x.On(p.provider).ProviderLeftovers(ctx, consumerID)
	require.NoError(t, err)
	assert.Empty(t, providerSide2)
	again, err := liqo0x.On(p.provider).DeleteObjects(ctx, providerSide)
	require.NoError(t, err, "deleting again is harmless")
	for _, ch := range again {
		assert.Equal(t, kube.Unchanged, ch.Action, ch.Object)
	}

	// The old certificate: still a valid client certificate, granted nothing.
	assert.False(t, realliqo0x.CanCreateResourceRequests(t, ctx, id.Config, st.RemoteTenantNamespace))
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

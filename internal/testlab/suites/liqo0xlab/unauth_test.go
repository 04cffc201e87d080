//go:build cluster

package liqo0xlab_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// requireAuthorizedForNothing is `kubectl auth can-i --list -n namespace`
// as the old identity: no rule on ResourceRequests, and creating one there
// is denied; the certificate itself still authenticates.
func requireAuthorizedForNothing(t *testing.T, ctx context.Context, old *rest.Config, namespace string) {
	t.Helper()
	kc, err := kubernetes.NewForConfig(old)
	require.NoError(t, err)
	rules, err := kc.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: namespace}}, metav1.CreateOptions{})
	require.NoError(t, err, "the old certificate still authenticates")
	for _, r := range rules.Status.ResourceRules {
		assert.NotContains(t, r.Resources, "resourcerequests", "rule %+v left to the old identity", r)
		assert.NotContains(t, r.APIGroups, "discovery.liqo.io", "rule %+v left to the old identity", r)
	}
	assert.False(t, realliqo0x.CanCreateResourceRequests(t, ctx, old, namespace), "create resourcerequests.discovery.liqo.io in %s is denied", namespace)
}

func requireAuthorized(t *testing.T, old *rest.Config, namespace string) {
	t.Helper()
	require.True(t, realliqo0x.CanCreateResourceRequests(t, t.Context(), old, namespace), "the identity may create ResourceRequests in %s", namespace)
}

// Unauthenticating a pair whose consumer runs Liqo 0.x: nothing is deleted
// unconfirmed; confirmed, both sides' leftovers go and the identity Liqo
// stored is authorized for nothing on the provider; running it again
// finds nothing.
func TestLiqo0xUnauthenticateLiqoConsumer(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)
	_, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), nil)
	require.NoError(t, err)
	id, err := kliqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	old := id.Config
	tenant := id.RemoteNamespace
	requireAuthorized(t, old, tenant)

	both := liqo0x.UnauthOptions{Consumer: p.consumer, Provider: p.provider}
	var asked []string
	both.Confirm = func(objects []string) bool { asked = objects; return false }
	res, err := liqo0x.Unauthenticate(ctx, both, nil)
	require.ErrorIs(t, err, flows.ErrNotConfirmed)
	assert.False(t, res.Deleted)
	assert.Len(t, asked, len(res.ConsumerRemove)+len(res.ProviderRemove), "the admin is asked about every object")
	requireAuthorized(t, old, tenant)

	both.Confirm = nil
	both.Yes = true
	rec := &recorder{}
	res, err = liqo0x.Unauthenticate(ctx, both, rec.sink)
	require.NoError(t, err)
	assert.True(t, res.Deleted)
	assert.Equal(t, consumerID, res.ConsumerID)
	assert.Equal(t, providerID, res.ProviderID)
	assert.Contains(t, res.ConsumerRemove, kliqo0x.Object{Kind: "Secret", Namespace: id.Namespace, Name: id.Name})
	assert.Contains(t, res.ConsumerRemove, kliqo0x.Object{Kind: "ForeignCluster", Name: providerName})
	assert.Contains(t, res.ProviderRemove, kliqo0x.Object{Kind: "Namespace", Name: tenant})
	assert.Contains(t, res.ProviderRemove, kliqo0x.Object{Kind: "Secret", Namespace: tenant, Name: "liqo-remote-certificate"})
	assert.Empty(t, res.Left, "both sides given: nothing left to others")
	for _, o := range append(append([]kliqo0x.Object{}, res.ConsumerRemove...), res.ProviderRemove...) {
		assert.True(t, rec.has(o.String()), "the run names each deletion (%s): %q", o, rec.texts())
	}
	requireGone(t, ctx, p.consumer, p.provider, providerID, consumerID)
	requireAuthorizedForNothing(t, ctx, old, tenant)

	res, err = liqo0x.Unauthenticate(ctx, both, nil)
	require.NoError(t, err, "running it again is a no-op")
	assert.Empty(t, res.ConsumerRemove)
	assert.Empty(t, res.ProviderRemove)
	assert.False(t, res.Deleted)
}

// Unauthenticating where this tool was the consumer: one-sided (the
// provider not at hand) cleans the consumer and says what is left on the
// provider and how to remove it — the old certificate still works there
// until then; with both sides the old kubeconfig is authorized for nothing.
func TestLiqo0xUnauthenticateToolConsumer(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)
	res, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), nil)
	require.NoError(t, err)
	old := realliqo0x.IdentityConfig(t, res.Kubeconfig, p.provider.Config)
	tenants := realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, p.consumerID)
	require.Len(t, tenants, 1)
	requireAuthorized(t, old, tenants[0])

	oneSided := liqo0x.UnauthOptions{Consumer: p.consumer, ProviderID: providerID, Yes: true}
	rec := &recorder{}
	un, err := liqo0x.Unauthenticate(ctx, oneSided, rec.sink)
	require.NoError(t, err)
	assert.True(t, un.Deleted)
	assert.NotEmpty(t, un.ConsumerRemove)
	assert.Empty(t, un.ProviderRemove)
	_, err = kliqo0x.On(p.consumer).KubeconfigSecret(ctx, providerID)
	assert.True(t, kube.IsNotFound(err), "the kubeconfig Secret is gone: %v", err)
	remove, kept, err := kliqo0x.On(p.consumer).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, remove)
	assert.Empty(t, kept)
	left := strings.Join(un.Left, "\n")
	assert.Contains(t, left, "kubectl delete namespace -l "+kliqo0x.ClusterIDLabel+"="+p.consumerID, "the command that removes the provider's side")
	assert.Contains(t, left, "kubectl get csr")
	assert.True(t, rec.has("kubectl delete namespace -l "+kliqo0x.ClusterIDLabel+"="+p.consumerID), "the run says it: %q", rec.texts())
	assert.Equal(t, tenants, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, p.consumerID), "the provider was not touched")
	requireAuthorized(t, old, tenants[0]) // why the provider's side matters

	again, err := liqo0x.Unauthenticate(ctx, oneSided, nil)
	require.NoError(t, err, "running it again is a no-op")
	assert.Empty(t, again.ConsumerRemove)
	assert.False(t, again.Deleted)

	both := liqo0x.UnauthOptions{Consumer: p.consumer, Provider: p.provider, Yes: true}
	un, err = liqo0x.Unauthenticate(ctx, both, nil)
	require.NoError(t, err)
	assert.True(t, un.Deleted)
	assert.Empty(t, un.ConsumerRemove)
	assert.Contains(t, un.ProviderRemove, kliqo0x.Object{Kind: "Namespace", Name: tenants[0]})
	requireGone(t, ctx, p.consumer, p.provider, providerID, p.consumerID)
	requireAuthorizedForNothing(t, ctx, old, tenants[0])

	un, err = liqo0x.Unauthenticate(ctx, both, nil)
	require.NoError(t, err, "running it again is a no-op")
	assert.Empty(t, un.ConsumerRemove)
	assert.Empty(t, un.ProviderRemove)
	assert.False(t, un.Deleted)
}

// requireGone fails unless neither side lists anything authentication left.
func requireGone(t *testing.T, ctx context.Context, consumer, provider *kube.Cluster, provID, consID string) {
	t.Helper()
	remove, kept, err := kliqo0x.On(consumer).ConsumerLeftovers(ctx, provID)
	require.NoError(t, err)
	assert.Empty(t, remove, "left on the consumer")
	assert.Empty(t, kept, "kept on the consumer")
	left, err := kliqo0x.On(provider).ProviderLeftovers(ctx, consID)
	require.NoError(t, err)
	assert.Empty(t, left, "left on the provider")
	assert.Empty(t, realliqo0x.TenantNamespaces(t, ctx, provider.Config, consID))
	assert.Zero(t, csrsOf(t, ctx, provider, consID))
}

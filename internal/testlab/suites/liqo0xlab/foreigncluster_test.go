//go:build cluster

package liqo0xlab_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// liqo0xPair is a provider and a consumer running Liqo v0.10.1, with the
// provider's peer info as `generate peer-info` would gather it.
type liqo0xPair struct {
	provider, consumer *kube.Cluster
	info               *peerinfo.Info
}

// startLiqo0xPair starts Liqo on both lab clusters and removes, when the
// test ends, everything authentication left on both sides, so that the
// next test may authenticate again (one identity per cluster ID).
func startLiqo0xPair(t *testing.T, ctx context.Context) *liqo0xPair {
	t.Helper()
	cs := testLab.Clusters(t)
	realliqo0x.StartCluster(t, ctx, cs[0], providerID, providerName, false)
	realliqo0x.StartCluster(t, ctx, cs[1], consumerID, consumerName, true)
	provider, err := kube.NewCluster(cs[0].Config, "")
	require.NoError(t, err)
	consumer, err := kube.NewCluster(cs[1].Config, "")
	require.NoError(t, err)
	token, err := realliqo0x.AuthToken(ctx, cs[0].Config)
	require.NoError(t, err)
	p := &liqo0xPair{provider: provider, consumer: consumer, info: &peerinfo.Info{
		ClusterID: providerID, ClusterName: providerName, AuthURL: realliqo0x.AuthURL(t, ctx, cs[0].Config), Token: token,
		Version: realliqo0x.LiqoVersion, Line: peerinfo.V04,
	}}
	// Registered after startLiqo: runs first, while Liqo still runs. Also
	// run now: a test that authenticated without cleaning up (the liqoctl-like
	// TestRealLiqoPairAuthenticates) must not decide what this one sees.
	t.Cleanup(func() { p.cleanup(t) })
	p.cleanup(t)
	p.requireClean(t, ctx)
	return p
}

// cleanup deletes both sides' leftovers by label, without the code under test.
func (p *liqo0xPair) cleanup(t *testing.T) {
	realliqo0x.CleanupPair(t, p.provider.Config, p.consumer.Config, providerID, consumerID)
}

// requireClean fails unless neither side holds anything of an earlier
// authentication: the consumer no identity, the provider no tenant namespace.
func (p *liqo0xPair) requireClean(t *testing.T, ctx context.Context) {
	t.Helper()
	fc, err := dynamicFC(t, ctx, p.consumer)
	require.True(t, kube.IsNotFound(err), "the consumer must start without a ForeignCluster for the provider: %v", fc)
	_, err = liqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.True(t, kube.IsNotFound(err), "the consumer must start without an identity for the provider: %v", err)
	require.Empty(t, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID), "the provider must start without a tenant namespace for the consumer")
}

// dynamicFC is the consumer's ForeignCluster for the provider.
func dynamicFC(t *testing.T, ctx context.Context, c *kube.Cluster) (*unstructured.Unstructured, error) {
	t.Helper()
	dc, err := dynamic.NewForConfig(c.Config)
	require.NoError(t, err)
	return dc.Resource(liqo0x.ForeignClusters).Get(ctx, providerName, metav1.GetOptions{})
}

func changeOf(changes []kube.Change, object string) kube.Action {
	for _, ch := range changes {
		if ch.Object == object {
			return ch.Action
		}
	}
	return ""
}

// The consumer's own Liqo 0.x, driven only through objects, authenticates
// with the right token; the identity it stores authenticates on the
// provider as the consumer's cluster ID in group liqo.io; applying the same
// peer info again changes nothing.
func TestLiqo0xApplyPeerAuthenticates(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)

	start := time.Now()
	changes, err := liqo0x.On(p.consumer).ApplyPeer(ctx, p.info, liqo0x.PeerOptions{})
	require.NoError(t, err)
	secretObj, fcObj := "Secret liqo/"+liqo0x.RemoteTokenPrefix+providerID, "ForeignCluster "+providerName
	assert.Equal(t, []kube.Change{{Object: secretObj, Action: kube.Created}, {Object: fcObj, Action: kube.Created}}, changes,
		"the token Secret first, then the ForeignCluster")
	st, err := liqo0x.On(p.consumer).WaitAuthenticated(ctx, providerID)
	require.NoError(t, err)
	t.Logf("timing: ApplyLiqo0xPeer → AuthenticationStatus Established in %s", time.Since(start).Round(time.Millisecond))
	assert.Equal(t, "Established", st.Status)
	assert.Equal(t, "IdentityAccepted", st.Reason)
	assert.Regexp(t, `^liqo-tenant-`+consumerName+`-[0-9a-f]{6}$`, st.RemoteTenantNamespace)
	assert.Regexp(t, `^liqo-tenant-`+providerName+`-[0-9a-f]{6}$`, st.LocalTenantNamespace)

	fc, err := dynamicFC(t, ctx, p.consumer)
	require.NoError(t, err)
	assert.Equal(t, kube.ManagedByValue, fc.GetLabels()[kube.ManagedByLabel])
	spec := fc.Object["spec"].(map[string]any)
	assert.Equal(t, "OutOfBand", spec["peeringType"])
	assert.Equal(t, "No", spec["outgoingPeeringEnabled"], "authentication only")
	assert.Equal(t, true, spec["insecureSkipTLSVerify"])

	id, err := liqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	assert.Equal(t, st.LocalTenantNamespace, id.Namespace)
	assert.Regexp(t, `^liqo-identity-`, id.Name)
	assert.Equal(t, st.RemoteTenantNamespace, id.RemoteNamespace)
	assert.Equal(t, p.provider.Config.Host, id.APIServerURL)
	assert.WithinDuration(t, time.Now().AddDate(1, 0, 0), id.NotAfter, 48*time.Hour, "Kubernetes signs for one year by default")
	user, groups := realliqo0x.WhoAmI(t, ctx, id.Config) // the stored identity reaches the provider
	assert.Equal(t, consumerID, user)
	assert.Contains(t, groups, "liqo.io")

	again, err := liqo0x.On(p.consumer).ApplyPeer(ctx, p.info, liqo0x.PeerOptions{})
	require.NoError(t, err)
	assert.Equal(t, []kube.Change{{Object: secretObj, Action: kube.Unchanged}, {Object: fcObj, Action: kube.Unchanged}}, again)

	peering, err := liqo0x.On(p.consumer).PeeringActive(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, peering, "an authentication-only ForeignCluster does not peer")
}

// A wrong token fails within seconds with the cause in words, the token
// masked, and nothing on the provider; correcting it bumps the reconcile
// label, so Liqo retries at once instead of after its error backoff.
func TestLiqo0xWrongTokenThenCorrected(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)

	wrong := *p.info
	wrong.Token = realliqo0x.WrongToken(t)
	start := time.Now()
	_, err := liqo0x.On(p.consumer).ApplyPeer(ctx, &wrong, liqo0x.PeerOptions{})
	require.NoError(t, err)
	waitCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err = liqo0x.On(p.consumer).WaitAuthenticated(waitCtx, providerID)
	elapsed := time.Since(start)
	require.Error(t, err)
	t.Logf("timing: wrong token reported in %s: %v", elapsed.Round(time.Millisecond), err)
	var failure *liqo0x.AuthFailure
	require.True(t, errors.As(err, &failure), "a refusal, not a timeout: %v", err)
	assert.Equal(t, liqo0x.WrongToken, failure.Refusal)
	assert.Less(t, elapsed, 10*time.Second)
	assert.NotContains(t, err.Error(), wrong.Token)
	assert.Contains(t, err.Error(), "refused the token")
	assert.NotContains(t, err.Error(), "\n")
	assert.Empty(t, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID), "a wrong token creates nothing on the provider")

	start = time.Now()
	changes, err := liqo0x.On(p.consumer).ApplyPeer(ctx, p.info, liqo0x.PeerOptions{})
	require.NoError(t, err)
	assert.Equal(t, kube.Updated, changeOf(changes, "Secret liqo/"+liqo0x.RemoteTokenPrefix+providerID))
	assert.Equal(t, kube.Updated, changeOf(changes, "ForeignCluster "+providerName), "the reconcile label is bumped")
	fc, err := dynamicFC(t, ctx, p.consumer)
	require.NoError(t, err)
	assert.NotEmpty(t, fc.GetLabels()[liqo0x.ReconcileLabel])
	st, err := liqo0x.On(p.consumer).WaitAuthenticated(ctx, providerID)
	require.NoError(t, err)
	t.Logf("timing: corrected token → Established in %s (Liqo's error backoff reached ~80 s in §10)", time.Since(start).Round(time.Millisecond))
	assert.Equal(t, "Established", st.Status)
	assert.Less(t, time.Since(start), 20*time.Second)
}

// Bad input writes nothing: the consumer's own cluster ID, or a
// ForeignCluster for the provider that peers in-band (its peeringType
// cannot change). No Liqo process runs: the refusals come before any write.
func TestLiqo0xApplyPeerRefusesWritingNothing(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx := liqo0xContext(t)
	require.NoError(t, realliqo0x.Install(ctx, cs[1].Config, realliqo0x.InstallOptions{
		ClusterID: consumerID, ClusterName: consumerName, AuthAddress: realliqo0x.FreeAddress(t)}))
	consumer, err := kube.NewCluster(cs[1].Config, "")
	require.NoError(t, err)
	token := strings.Repeat("0123456789abcdef", 8)

	own := &peerinfo.Info{ClusterID: consumerID, ClusterName: consumerName, AuthURL: "https://127.0.0.1:4443", Token: token}
	_, err = liqo0x.On(consumer).ApplyPeer(ctx, own, liqo0x.PeerOptions{})
	require.ErrorContains(t, err, "this cluster's own")
	_, err = consumer.Kube.CoreV1().Secrets("liqo").Get(ctx, liqo0x.RemoteTokenPrefix+consumerID, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "no token Secret written: %v", err)

	dc, err := dynamic.NewForConfig(consumer.Config)
	require.NoError(t, err)
	fcs := dc.Resource(liqo0x.ForeignClusters)
	inBand := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "discovery.liqo.io/v1alpha1", "kind": "ForeignCluster",
		"metadata": map[string]any{"name": "in-band-provider", "labels": map[string]any{liqo0x.ClusterIDLabel: providerID}},
		"spec": map[string]any{"peeringType": "InBand", "clusterIdentity": map[string]any{"clusterID": providerID, "clusterName": providerName},
			"foreignAuthUrl": "https://127.0.0.1:4443"},
	}}
	_, err = fcs.Create(ctx, inBand, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = fcs.Delete(context.Background(), "in-band-provider", metav1.DeleteOptions{}) })
	info := &peerinfo.Info{ClusterID: providerID, ClusterName: providerName, AuthURL: "https://127.0.0.1:4443", Token: token}
	_, err = liqo0x.On(consumer).ApplyPeer(ctx, info, liqo0x.PeerOptions{})
	require.ErrorContains(t, err, "peeringType InBand")
	assert.NotContains(t, err.Error(), token)
	_, err = consumer.Kube.CoreV1().Secrets("liqo").Get(ctx, liqo0x.RemoteTokenPrefix+providerID, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "no token Secret written: %v", err)
}

//go:build cluster

package peerings_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// rowFor finds the row of remote in role among rows (the lab's clusters
// hold other tests' peerings too).
func rowFor(t *testing.T, rows []handshake.Peering, remote string, role handshake.Role, generation string) handshake.Peering {
	t.Helper()
	for _, r := range rows {
		if r.RemoteID == remote && r.Role == role && r.Generation == generation {
			return r
		}
	}
	require.Failf(t, "no row", "no %s %s row for %s in %+v", generation, role, remote, rows)
	return handshake.Peering{}
}

// setTenantCondition is the provider admin cordoning or draining a Tenant.
func setTenantCondition(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID string, cond authv1beta1.TenantCondition) {
	t.Helper()
	tenant, err := provider.TenantFor(ctx, "", consumerID)
	require.NoError(t, err)
	tenant.Spec.TenantCondition = cond
	_, err = provider.Liqo.Tenants(tenant.Namespace).Update(ctx, tenant, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// createStrayNonce leaves on provider what `create nonce` leaves for a
// consumer that never came back: its tenant namespace and nonce.
func createStrayNonce(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID string) {
	t.Helper()
	ns := kube.TenantNamespaceName(consumerID)
	_, err := provider.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: kube.TenantNamespaceLabels(consumerID)}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = provider.Kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: kube.NonceSecretName, Namespace: ns, Labels: map[string]string{kube.RemoteClusterIDLabel: consumerID, kube.NonceLabel: "true"}},
		Data:       map[string][]byte{kube.NonceField: []byte("stray-nonce")}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// A consumer-side v1 peering made by a real handshake with a granted slice,
// the provider side of it cordoned, a stray nonce, and a Liqo 0.x identity
// whose certificate expired: each row says what it is, and the health
// follows; read with both clusters, the rows of the pair are joined.
func TestOverviewShowsEveryPeeringWithItsHealth(t *testing.T) {
	provider, consumer := testLab.Pair(t, "ov-provider", "ov-consumer")
	ctx := labtest.Context(t)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, handshake.Discard)
	require.NoError(t, err)
	_, err = flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: "ov-slice", ProviderID: "ov-provider", Class: "default", CPU: "2", Memory: "1Gi"},
		flows.SliceOptions{Wait: true, Provider: provider}, handshake.Discard)
	require.NoError(t, err)
	setTenantCondition(t, ctx, provider, "ov-consumer", authv1beta1.TenantConditionCordoned)
	createStrayNonce(t, ctx, provider, "ov-stray")
	expired := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	createLiqo0xIdentity(t, ctx, consumer, "ov-legacy", expired)

	// The provider's side.
	rows, err := peerings.Read(ctx, provider, peerings.Options{})
	require.NoError(t, err)
	p := rowFor(t, rows, "ov-consumer", handshake.RoleProvider, handshake.GenerationV1)
	assert.Equal(t, handshake.StageGenerateIdentity, p.Stage)
	assert.Equal(t, handshake.StateReady, p.Tenant)
	assert.Equal(t, "Cordoned", p.TenantCondition)
	assert.Equal(t, handshake.MadeByTool, p.MadeBy)
	assert.Equal(t, "liqo-tenant-ov-consumer", p.TenantNamespace)
	assert.False(t, p.CertificateNotAfter.IsZero())
	require.Len(t, p.Slices, 1)
	assert.Equal(t, "ov-slice", p.Slices[0].Name)
	assert.Equal(t, map[string]string{"cpu": "2", "memory": "1Gi"}, p.Requested)
	assert.Equal(t, "2", p.Granted["cpu"])
	assert.Equal(t, handshake.Health{Verdict: handshake.VerdictCordoned, Reason: "the provider cordoned the Tenant: no new resources"}, p.Health)

	stray := rowFor(t, rows, "ov-stray", handshake.RoleProvider, handshake.GenerationV1)
	assert.Equal(t, handshake.StageAwaitTenant, stray.Stage)
	assert.Equal(t, handshake.StateAbsent, stray.Tenant)
	assert.Equal(t, handshake.VerdictIncomplete, stray.Health.Verdict)
	assert.Contains(t, stray.Health.Reason, "generate tenant")

	// The consumer's side: v1 complete, 0.x expired.
	rows, err = peerings.Read(ctx, consumer, peerings.Options{})
	require.NoError(t, err)
	c := rowFor(t, rows, "ov-provider", handshake.RoleConsumer, handshake.GenerationV1)
	assert.Equal(t, handshake.StageAuthenticated, c.Stage)
	assert.Equal(t, handshake.StateReady, c.Identity)
	assert.Equal(t, identityNotAfter(t, consumer, "ov-provider"), c.CertificateNotAfter)
	assert.True(t, c.LastRenewal.IsZero())
	require.Len(t, c.Slices, 1)
	assert.Equal(t, "Accepted", c.Slices[0].Authentication)
	assert.Equal(t, "liqo-tenant-ov-provider/kubeconfig-resourceslice-ov-slice", c.Slices[0].KubeconfigSecret)
	assert.Equal(t, handshake.Health{Verdict: handshake.VerdictOK, Reason: "authenticated"}, c.Health, "alone, the consumer cannot see the cordon")

	legacy := rowFor(t, rows, "ov-legacy", handshake.RoleConsumer, handshake.GenerationLiqo0x)
	assert.Equal(t, handshake.StageAuthenticated, legacy.Stage)
	assert.Equal(t, handshake.MadeByLiqo, legacy.MadeBy)
	assert.Equal(t, expired, legacy.CertificateNotAfter)
	assert.Equal(t, handshake.VerdictExpired, legacy.Health.Verdict)

	// Both sides: only the pair, joined.
	rows, err = peerings.Read(ctx, consumer, peerings.Options{Remote: provider})
	require.NoError(t, err)
	require.Len(t, rows, 1, "%+v", rows)
	j := rows[0]
	assert.Equal(t, "ov-provider", j.RemoteID)
	require.NotNil(t, j.Remote)
	assert.Equal(t, "ov-consumer", j.Remote.RemoteID)
	assert.Equal(t, handshake.RoleProvider, j.Remote.Role)
	identity, tenant, condition := j.PairStates()
	assert.Equal(t, []string{"ready", "ready", "Cordoned"}, []string{string(identity), string(tenant), condition})
	assert.Equal(t, handshake.Health{Verdict: handshake.VerdictCordoned, Reason: "remote: the provider cordoned the Tenant: no new resources"}, j.Health)
}

// createLiqo0xIdentity stores on consumer what Liqo 0.x stores once a
// provider issued it an identity (liqo-legacy-auth.md §3.5).
func createLiqo0xIdentity(t *testing.T, ctx context.Context, consumer *kube.Cluster, providerID string, notAfter time.Time) {
	t.Helper()
	ns := "liqo-tenant-legacy-" + providerID
	_, err := consumer.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{liqo0x.ClusterIDLabel: providerID, liqo0x.TenantNamespaceLabel: "true"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = consumer.Kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{GenerateName: liqo0x.IdentitySecretPrefix, Namespace: ns, Labels: map[string]string{
			liqo0x.LocalIdentityLabel: "true", liqo0x.ClusterIDLabel: providerID, liqo0x.CertificateAvailableLabel: "true"}},
		Data: map[string][]byte{"certificate": certificatePEM("ov-consumer", notAfter.Add(-24*time.Hour), notAfter),
			"apiServerUrl": []byte("https://legacy.example:6443"), "namespace": []byte("liqo-tenant-ov-consumer")}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// Watch sends a new overview when the cluster changes (the
// provider drains a Tenant, a nonce appears), without polling; read with
// the remote, its rows carry the remote's side from the first.
func TestWatchOverviewFollowsTheClusters(t *testing.T) {
	provider, consumer := testLab.Pair(t, "ovw-provider", "ovw-consumer")
	ctx := labtest.Context(t)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, handshake.Discard)
	require.NoError(t, err)

	watchCtx, stop := context.WithCancel(ctx)
	updates, err := peerings.Watch(watchCtx, provider, peerings.Options{Debounce: 20 * time.Millisecond})
	require.NoError(t, err)
	first := <-updates
	assert.Equal(t, handshake.VerdictOK, rowFor(t, first, "ovw-consumer", handshake.RoleProvider, handshake.GenerationV1).Health.Verdict)

	setTenantCondition(t, ctx, provider, "ovw-consumer", authv1beta1.TenantConditionDrained)
	next := awaitOverview(t, ctx, updates, func(rows []handshake.Peering) bool {
		r := findRow(rows, "ovw-consumer", handshake.RoleProvider)
		return r != nil && r.Health.Verdict == handshake.VerdictDrained
	})
	assert.Equal(t, "Drained", rowFor(t, next, "ovw-consumer", handshake.RoleProvider, handshake.GenerationV1).TenantCondition)

	createStrayNonce(t, ctx, provider, "ovw-stray")
	next = awaitOverview(t, ctx, updates, func(rows []handshake.Peering) bool { return findRow(rows, "ovw-stray", handshake.RoleProvider) != nil })
	assert.Equal(t, handshake.VerdictIncomplete, rowFor(t, next, "ovw-stray", handshake.RoleProvider, handshake.GenerationV1).Health.Verdict)

	stop()
	for range updates { // closed once the watch stops
	}

	joined, err := peerings.Watch(ctx, consumer, peerings.Options{Remote: provider})
	require.NoError(t, err)
	rows := <-joined
	require.Len(t, rows, 1, "%+v", rows)
	require.NotNil(t, rows[0].Remote)
	assert.Equal(t, handshake.Health{Verdict: handshake.VerdictDrained, Reason: "remote: the provider drained the Tenant: resources neither used nor negotiated"}, rows[0].Health)
}

func findRow(rows []handshake.Peering, remote string, role handshake.Role) *handshake.Peering {
	for i := range rows {
		if rows[i].RemoteID == remote && rows[i].Role == role {
			return &rows[i]
		}
	}
	return nil
}

// awaitOverview reads overviews until one satisfies ok.
func awaitOverview(t *testing.T, ctx context.Context, updates <-chan []handshake.Peering, ok func([]handshake.Peering) bool) []handshake.Peering {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		select {
		case rows, open := <-updates:
			require.True(t, open, "the watch stopped")
			if ok(rows) {
				return rows
			}
		case <-ctx.Done():
			require.FailNow(t, "no such overview within 30s")
		}
	}
}

// identityNotAfter is the expiry of the consumer's Identity for providerID.
func identityNotAfter(t *testing.T, consumer *kube.Cluster, providerID string) time.Time {
	t.Helper()
	id, err := consumer.ControlPlaneIdentityFor(labtest.Context(t), providerID)
	require.NoError(t, err)
	return artifact.CertificateNotAfter(id)
}

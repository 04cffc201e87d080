//go:build cluster

package liqointerop_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// liqoManager is the field manager of what liqo-peer writes (client-go
// names it after the binary): it tells Liqo's writes from this project's
// (kube.FieldManager).
const liqoManager = "liqo-peer"

// testTimeout bounds one handshake against real Liqo, peer start included.
const testTimeout = 3 * time.Minute

// notes collects the notes of a flow (who serves each side); sinks are
// called from several goroutines.
type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) sink(ev handshake.Event) {
	if ev.Kind == handshake.Note {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.lines = append(n.lines, ev.Message)
	}
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// A Liqo consumer of every release authenticates to this project's
// provider: Liqo's nonce signer signs our nonce with Liqo's own keys, our
// provider accepts the Tenant made from them, and Liqo's Identity
// controller turns our provider's answer into a kubeconfig that works there
// as the consumer. Then it unauthenticates, leaving nothing that grants
// access.
func TestLiqoConsumerOurProvider(t *testing.T) {
	forEachRelease(t, func(t *testing.T, release string) {
		p := startPair(t, release, testTimeout, liqoConsumes, "liqo-consumer", "ours-provider")
		ctx, consumer, provider, liqoID, ourID := p.ctx, p.liqo, p.ours, p.liqoID, p.ourID

		var n notes
		res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, n.sink)
		require.NoError(t, err)
		assert.Equal(t, liqoID, res.ConsumerID)
		assert.Equal(t, flows.EngineLiqo, res.ConsumerEngine)
		assert.Equal(t, flows.EngineInProcess, res.ProviderEngine)
		assert.Contains(t, n.all(), "consumer side served by "+string(flows.EngineLiqo))

		// The signature is the work of Liqo's nonce signer.
		signed, err := consumer.Kube.CoreV1().Secrets(kube.TenantNamespaceName(ourID)).Get(ctx, kube.SignedNonceSecretName, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, liqotest.Managers(signed), liqoManager+"/")

		// The kubeconfig Secret was made by Liqo's Identity controller, owned by
		// the Identity our flow applied ...
		s, err := consumer.KubeconfigSecretFor(ctx, ourID)
		require.NoError(t, err)
		assert.Contains(t, liqotest.Managers(s), liqoManager+"/")
		assert.NotContains(t, liqotest.Managers(s), kube.FieldManager+"/")
		require.Len(t, s.OwnerReferences, 1)
		assert.Equal(t, "Identity", s.OwnerReferences[0].Kind)
		assert.Equal(t, res.Identity.Name, s.OwnerReferences[0].Name)

		// ... and authenticates to our provider as the Liqo consumer, in its
		// tenant namespace.
		v, err := flows.Verify(ctx, consumer, ourID, nil)
		require.NoError(t, err)
		assert.Equal(t, liqoID, v.User)
		assert.Contains(t, v.Groups, "liqo.io")
		assert.Equal(t, kube.TenantNamespaceName(liqoID), v.TenantNamespace)
		assert.Contains(t, v.Allowed, "list resourceslices.authentication.liqo.io -n "+kube.TenantNamespaceName(liqoID))

		t.Run("reinstalled", func(t *testing.T) { reinstalledConsumerRecovers(t, ctx, consumer, provider, liqoID, ourID, true) })
		t.Run("unauthenticate", func(t *testing.T) { unauthenticateLeavesNoAccess(t, ctx, consumer, provider, liqoID, ourID) })
	})
}

// This project's consumer authenticates to a Liqo provider of every
// release: Liqo's nonce creator makes the nonce, its Tenant controller
// verifies our signature and CSR, has the CSR signed and fills the Tenant
// status, and our kubeconfig then works on the Liqo provider as the
// consumer, in group liqo.io. Then it unauthenticates: Liqo's Tenant
// controller lets the Tenant go once it unbound the consumer.
func TestOurConsumerLiqoProvider(t *testing.T) {
	forEachRelease(t, func(t *testing.T, release string) {
		p := startPair(t, release, testTimeout, liqoProvides, "liqo-provider", "ours-consumer")
		ctx, provider, consumer, liqoID, ourID := p.ctx, p.liqo, p.ours, p.liqoID, p.ourID

		var n notes
		res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, n.sink)
		require.NoError(t, err)
		assert.Equal(t, liqoID, res.ProviderID)
		assert.Equal(t, flows.EngineLiqo, res.ProviderEngine)
		assert.Equal(t, flows.EngineInProcess, res.ConsumerEngine)
		assert.Contains(t, n.all(), "provider side served by "+string(flows.EngineLiqo))

		// The Tenant status is Liqo's work: the certificate it had signed and
		// the address it advertises.
		tenant, err := provider.Liqo.Tenants(kube.TenantNamespaceName(ourID)).Get(ctx, res.Tenant.Name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, liqotest.Managers(tenant), liqoManager+"/status")
		nonce, err := provider.Kube.CoreV1().Secrets(kube.TenantNamespaceName(ourID)).Get(ctx, kube.NonceSecretName, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, liqotest.Managers(nonce), liqoManager+"/", "Liqo's nonce creator made the nonce")
		require.NotNil(t, tenant.Status.AuthParams)
		assert.NotEmpty(t, tenant.Status.AuthParams.SignedCRT)
		assert.Equal(t, p.liqoLab.Config.Host, tenant.Status.AuthParams.APIServer)

		// Our kubeconfig authenticates to the Liqo provider as the consumer, in
		// group liqo.io, with the rights Liqo's ClusterRoles grant in the tenant
		// namespace.
		v, err := flows.Verify(ctx, consumer, liqoID, nil)
		require.NoError(t, err)
		assert.Equal(t, ourID, v.User)
		assert.Contains(t, v.Groups, "liqo.io")
		assert.Equal(t, kube.TenantNamespaceName(ourID), v.TenantNamespace)
		assert.Contains(t, v.Allowed, "list resourceslices.authentication.liqo.io -n "+kube.TenantNamespaceName(ourID))
		assert.Contains(t, v.Denied, "get secrets -n "+kube.TenantNamespaceName(ourID))

		// What the provider's admin is shown before an Identity: an
		// override is refused on Liqo, and AdvertisedOrFixed asks instead
		// what Liqo itself advertises. This lab's Liqo runs as a process with
		// its address flag and the cluster has no Node, so that is Liqo's own
		// refusal, with what to set (on a cluster with Nodes it is the
		// Node's address, Fixed).
		elsewhere := flows.EngineOptions{APIServerOverride: "https://elsewhere.example:6443"}
		_, err = flows.AdvertisedTo(ctx, provider, ourID, elsewhere)
		require.ErrorIs(t, err, flows.ErrLiqoAdvertises)
		_, err = flows.AdvertisedOrFixed(ctx, provider, ourID, elsewhere)
		require.NotErrorIs(t, err, flows.ErrLiqoAdvertises)
		assert.ErrorContains(t, err, "no master node found")

		t.Run("reinstalled", func(t *testing.T) {
			reinstalledConsumerRecovers(t, ctx, consumer, provider, ourID, liqoID, realliqov1.ProviderRenews(release))
		})
		t.Run("unauthenticate", func(t *testing.T) { unauthenticateLeavesNoAccess(t, ctx, consumer, provider, ourID, liqoID) })
	})
}

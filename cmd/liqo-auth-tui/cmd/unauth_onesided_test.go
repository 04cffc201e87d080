//go:build cluster

package cmd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// unauthenticate --one-sided, when the other cluster is gone: each side is
// cleaned alone, its tenant namespace included, and what is left on the
// other is printed with the command that removes it; run again, it has
// nothing left to do, and says nothing of Liqo 0.x.
func TestUnauthenticateOneSidedCommand(t *testing.T) {
	provider, consumer := initSide(t, 0, "os-provider"), initSide(t, 1, "os-consumer")
	remote := []string{"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace}
	code, _, errOut := run(consumer.args(append([]string{"authenticate"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	code, _, errOut = run(consumer.args("unauthenticate", "--one-sided", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "left on the provider", "says what stays on the provider it did not reach")
	assert.Contains(t, errOut, "kubectl")
	assert.False(t, tenantNamespaceExists(t, 1, provider.id), "the consumer's tenant namespace for the provider is gone")

	providerOnly := append([]string{"unauthenticate", "--one-sided", "--remote-cluster-id", consumer.id}, remote...)
	code, _, errOut = run(providerOnly...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "left on the consumer")
	assert.False(t, tenantNamespaceExists(t, 0, consumer.id), "the provider's tenant namespace for the consumer is gone")

	code, _, errOut = run(consumer.args("unauthenticate", "--one-sided", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assertNoLiqo0xAdvice(t, errOut)
}

// A handshake begun with a peer that never answered leaves no trace once
// unauthenticate --one-sided ran: on the consumer a nonce signed for a
// provider that never was (generate tenant with a random nonce), on the
// provider a nonce made for a consumer that never sent its Tenant. The
// wizard lists each as a known peer before, and no more after.
func TestUnauthenticateOneSidedRemovesAStrayHandshake(t *testing.T) {
	provider, consumer := initSide(t, 0, "stray-provider"), initSide(t, 1, "stray-consumer")
	code, _, errOut := run(consumer.args("generate", "tenant", "--remote-cluster-id", "never-provider", "--nonce", mustNonce(t), "--output-file", t.TempDir()+"/t.yaml")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	code, _, errOut = run(provider.args("create", "nonce", "--remote-cluster-id", "never-consumer")...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	consumerRef := tui.ClusterRef{Kubeconfig: consumer.kubeconfig, Namespace: consumer.liqoNamespace}
	providerRef := tui.ClusterRef{Kubeconfig: provider.kubeconfig, Namespace: provider.liqoNamespace}
	require.Contains(t, peerIDs(t, b, consumerRef, handshake.RoleConsumer), "never-provider")
	require.Contains(t, peerIDs(t, b, providerRef, handshake.RoleProvider), "never-consumer")

	code, _, errOut = run(consumer.args("unauthenticate", "--one-sided", "--remote-cluster-id", "never-provider")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assertNoLiqo0xAdvice(t, errOut)
	assert.Contains(t, errOut, "Tenant namespace deleted")
	assert.False(t, tenantNamespaceExists(t, 1, "never-provider"), "the namespace and its signed nonce are gone")
	assert.NotContains(t, peerIDs(t, b, consumerRef, handshake.RoleConsumer), "never-provider")

	code, _, errOut = run("unauthenticate", "--one-sided", "--remote-cluster-id", "never-consumer",
		"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assertNoLiqo0xAdvice(t, errOut)
	assert.False(t, tenantNamespaceExists(t, 0, "never-consumer"), "the namespace and its nonce are gone")
	assert.NotContains(t, peerIDs(t, b, providerRef, handshake.RoleProvider), "never-consumer")
}

// unauthenticate with both clusters keeps the tenant namespaces, as Liqo
// does, and says so: which, why, and the command that removes each.
func TestUnauthenticateSaysWhyTenantNamespacesStay(t *testing.T) {
	provider, consumer := initSide(t, 0, "kept-provider"), initSide(t, 1, "kept-consumer")
	remote := []string{"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace}
	code, _, errOut := run(consumer.args(append([]string{"authenticate"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	code, _, errOut = run(consumer.args(append([]string{"unauthenticate"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	for _, kept := range []struct {
		cluster  int
		remoteID string
	}{{1, provider.id}, {0, consumer.id}} {
		ns := kube.TenantNamespaceName(kept.remoteID)
		assert.True(t, tenantNamespaceExists(t, kept.cluster, kept.remoteID), "kept, as Liqo keeps it")
		assert.Contains(t, errOut, "Tenant namespace "+ns+" kept, as Liqo keeps it: a later authenticate reuses")
		assert.Contains(t, errOut, "`kubectl delete namespace "+ns+"` removes it")
	}
	assertNoLiqo0xAdvice(t, errOut)
}

// assertNoLiqo0xAdvice: what unauthenticate says of v1 clusters names
// nothing of Liqo 0.x's.
func assertNoLiqo0xAdvice(t *testing.T, out string) {
	t.Helper()
	for _, s := range []string{"Nothing left by authentication", "remote-token-", "liqoctl unpeer out-of-band", "discovery.liqo.io"} {
		assert.NotContains(t, out, s)
	}
}

func tenantNamespaceExists(t *testing.T, cluster int, remoteID string) bool {
	t.Helper()
	cs, err := kubernetes.NewForConfig(clusters(t)[cluster].Config)
	require.NoError(t, err)
	_, err = cs.CoreV1().Namespaces().Get(labtest.Context(t), kube.TenantNamespaceName(remoteID), metav1.GetOptions{})
	if kube.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

func peerIDs(t *testing.T, b *wizardbackend.Backend, ref tui.ClusterRef, role handshake.Role) []string {
	t.Helper()
	peers, err := b.Peers(labtest.Context(t), ref, role)
	require.NoError(t, err)
	var ids []string
	for _, p := range peers {
		ids = append(ids, p.ID)
	}
	return ids
}

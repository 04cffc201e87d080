//go:build cluster

package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// authenticate in a terminal names the consumer and the provider and asks
// before the first write: swapped kubeconfigs, refused, write nothing on
// either cluster; the right way round, accepted, authenticate.
func TestAuthenticateAsksInTmux(t *testing.T) {
	sfx := suffix(t)
	ns := "liqo-e2e-ask-" + sfx
	provider := initSide(t, providerIdx, "e2e-ask-provider-"+sfx, ns)
	consumer := initSide(t, consumerIdx, "e2e-ask-consumer-"+sfx, ns)
	tmux := newTmux(t)
	authenticate := func(name string, local, remote side) *term {
		return tmux.start(name, binary(t), "authenticate", "--kubeconfig", local.kubeconfig, "--remote-kubeconfig", remote.kubeconfig,
			"--liqo-namespace", ns, "--remote-liqo-namespace", ns)
	}

	swapped := authenticate("swapped", provider, consumer)
	swapped.waitFor(screenWait, "consumer = "+provider.id+" (context ", "provider = "+consumer.id+" (context ",
		"Authenticate this consumer with this provider? [y/N]")
	swapped.typeText("n")
	swapped.keys("Enter")
	assert.Equal(t, 1, swapped.waitExit(screenWait))
	assert.Contains(t, swapped.screen(), "nothing written: the consumer is --kubeconfig and the provider --remote-kubeconfig")
	requireNoTenantNamespace(t, provider, consumer.id)
	requireNoTenantNamespace(t, consumer, provider.id)

	right := authenticate("right", consumer, provider)
	right.waitFor(screenWait, "consumer = "+consumer.id+" (context ", "provider = "+provider.id+" (context ", "[y/N]")
	right.typeText("y")
	right.keys("Enter")
	require.Equal(t, 0, right.waitExit(flowWait), right.screen())
	assert.Contains(t, right.screen(), "Consumer "+consumer.id+" is authenticated with provider "+provider.id)
	requireKubeconfigSecret(t, consumer, provider)
}

// requireNoTenantNamespace: nothing of a handshake with remoteID on s.
func requireNoTenantNamespace(t *testing.T, s side, remoteID string) {
	t.Helper()
	c, err := kube.Connect(kube.KubeconfigOptions{Path: s.kubeconfig, LiqoNamespace: s.namespace})
	require.NoError(t, err)
	_, err = c.TenantNamespace(labtest.Context(t), remoteID)
	require.True(t, kube.IsNotFound(err), "a tenant namespace for %s on %s: %v", remoteID, s.id, err)
}

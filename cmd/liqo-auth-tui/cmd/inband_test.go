//go:build cluster

package cmd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// authenticate --in-band alone, where Liqo's networking objects are (the
// provider's IP api-server-proxy, the consumer's Configuration for it),
// derives the proxy as liqoctl does and reaches the provider directly;
// verify then says the in-band address answers only inside Liqo's fabric,
// and exits 0.
func TestAuthenticateInBandAlone(t *testing.T) {
	ctx := labtest.Context(t)
	for _, c := range clusters(t)[:2] {
		require.NoError(t, realliqov1.InstallNetworkingCRDs(ctx, c.Config, ""))
	}
	provider, consumer := initSide(t, 0, "inbandcmd-provider"), initSide(t, 1, "inbandcmd-consumer")
	pc, err := kube.Connect(kube.KubeconfigOptions{Path: provider.kubeconfig, LiqoNamespace: provider.liqoNamespace})
	require.NoError(t, err)
	cc, err := kube.Connect(kube.KubeconfigOptions{Path: consumer.kubeconfig, LiqoNamespace: consumer.liqoNamespace})
	require.NoError(t, err)
	_, err = realliqov1.ServeAPIServerProxy(ctx, pc, "10.70.0.12", "10.70.0.0/16")
	require.NoError(t, err)
	require.NoError(t, realliqov1.ConfigureNetwork(ctx, cc, provider.id, realliqov1.PeerCIDRs{Pod: "10.200.0.0/16", External: "10.70.0.0/16",
		RemappedPod: "10.71.0.0/16", RemappedExternal: "10.81.0.0/16"}, true))

	code, out, errOut := run(consumer.args("authenticate", "--remote-kubeconfig", provider.kubeconfig,
		"--remote-liqo-namespace", provider.liqoNamespace, "--in-band", "-o", "json")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	want := "http://10.81.0.12:8118"
	assert.Contains(t, out, `"proxyURL": "`+want+`"`)
	assert.Contains(t, errOut, "In-band proxy "+want)
	assert.Contains(t, errOut, "reachable only inside Liqo's network fabric")
	assert.NotContains(t, errOut, flows.ReasonAdvertisedUnreachable, "an in-band address is no warning")
	tenant, err := pc.TenantFor(ctx, "", consumer.id)
	require.NoError(t, err)
	assert.Equal(t, want, tenant.Spec.ProxyURL)

	code, out, errOut = run(consumer.args("verify", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, out, "Not verified:        ")
	assert.Contains(t, out, "through Liqo's in-band proxy "+want+", which is reachable only inside Liqo's network fabric")
	assert.NotContains(t, out, "Authenticated as:")
}

//go:build cluster

package flows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Both sides as Liqo's networking leaves them (Liqo's default external
// CIDR on both clusters, so the consumer remaps the provider's).
var inBandCIDRs = realliqov1.PeerCIDRs{Pod: "10.200.0.0/16", External: "10.70.0.0/16", RemappedPod: "10.71.0.0/16", RemappedExternal: "10.81.0.0/16"}

// networkingCRDs installs Liqo v1.2's IP and Configuration CRDs on both
// lab clusters (cluster-wide; nothing else in this package reads them).
func networkingCRDs(t *testing.T) {
	t.Helper()
	for _, c := range clusters(t) {
		require.NoError(t, realliqov1.InstallNetworkingCRDs(labtest.Context(t), c.Config, ""))
	}
}

// --in-band without --proxy-url derives the proxy as liqoctl does: the
// provider's IP api-server-proxy (10.70.0.9, in its external CIDR) as the
// consumer sees it (10.81.0.9), port 8118; it travels into the Tenant, the
// Identity and the kubeconfig Secret. That address answers only inside
// Liqo's fabric: the check after the apply and verify say so, not fail.
func TestAuthenticateInBandDerivesTheProxy(t *testing.T) {
	networkingCRDs(t)
	provider, consumer := pair(t, "inband-provider", "inband-consumer")
	ctx := labtest.Context(t)
	_, err := realliqov1.ServeAPIServerProxy(ctx, provider, "10.70.0.9", "10.70.0.0/16")
	require.NoError(t, err)
	require.NoError(t, realliqov1.ConfigureNetwork(ctx, consumer, "inband-provider", inBandCIDRs, true))

	var log labtest.EventLog
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, InBand: true}, log.Sink)
	require.NoError(t, err)
	want := "http://10.81.0.9:8118"
	assert.Equal(t, want, res.ProxyURL)
	assert.Equal(t, want, res.Tenant.Spec.ProxyURL)
	assert.Equal(t, want, res.Identity.Spec.AuthParams.ProxyURL)
	assert.True(t, log.Said("In-band proxy "+want), "the derived proxy is said")
	secret, err := consumer.KubeconfigSecretFor(ctx, "inband-provider")
	require.NoError(t, err)
	kc, err := clientcmd.Load(secret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	assert.Equal(t, want, kc.Clusters["inband-provider"].ProxyURL)
	assert.True(t, flows.InBandProxy(ctx, consumer, "inband-provider", want))
	assert.False(t, flows.InBandProxy(ctx, consumer, "inband-provider", "http://proxy.example:3128"))

	// After the apply: a note, no warning.
	var note bool
	for _, ev := range log.Events() {
		assert.NotEqual(t, flows.ReasonAdvertisedUnreachable, ev.Reason, ev.Message)
		if ev.Reason == flows.ReasonInBandOnly {
			note = ev.Kind == handshake.Note
			assert.Contains(t, ev.Message, "reachable only inside Liqo's network fabric")
		}
	}
	assert.True(t, note, "the check after the apply says the address is in-band")

	var vlog labtest.EventLog
	v, err := flows.Verify(ctx, consumer, "inband-provider", vlog.Sink)
	require.NoError(t, err, "verify does not fail on an in-band address")
	assert.Contains(t, v.Unreached, want)
	assert.Contains(t, v.Unreached, "reachable only inside Liqo's network fabric")
	assert.Empty(t, v.User)
	assert.False(t, v.CertificateNotAfter.IsZero())
	assert.True(t, vlog.Said("Not verified from this machine"))
}

// Where Liqo's networking objects are missing, --in-band alone refuses in
// one line that says what to do, before anything is written.
func TestAuthenticateInBandRefusalsWriteNothing(t *testing.T) {
	networkingCRDs(t)
	ctx := labtest.Context(t)
	for _, tc := range []struct {
		name        string
		proxyIP     string // "": no IP api-server-proxy; "-": one without status
		network     bool
		remapped    bool
		want        string
		consumerSet bool // the consumer's tenant namespace exists (its Configuration's)
	}{
		{name: "no-ip", network: true, remapped: true, consumerSet: true,
			want: "the provider has no IP api-server-proxy in namespace liqo-inband-no-ip-p: Liqo's networking module"},
		{name: "ip-unmapped", proxyIP: "-", network: true, remapped: true, consumerSet: true,
			want: "has no remapped address yet (status.ip)"},
		{name: "no-conf", proxyIP: "10.70.0.9",
			want: "the consumer has no networking Configuration for provider inband-no-conf-p: Liqo's networking between the two clusters is not connected"},
		{name: "conf-unmapped", proxyIP: "10.70.0.9", network: true, consumerSet: true,
			want: "cannot remap 10.70.0.9: its CIDRs are not remapped yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			providerID, consumerID := "inband-"+tc.name+"-p", "inband-"+tc.name+"-c"
			provider, consumer := pair(t, providerID, consumerID)
			switch tc.proxyIP {
			case "":
			case "-":
				_, err := realliqov1.ServeAPIServerProxy(ctx, provider, "", "")
				require.NoError(t, err)
			default:
				_, err := realliqov1.ServeAPIServerProxy(ctx, provider, tc.proxyIP, "10.70.0.0/16")
				require.NoError(t, err)
			}
			if tc.network {
				require.NoError(t, realliqov1.ConfigureNetwork(ctx, consumer, providerID, inBandCIDRs, tc.remapped))
			}
			_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, InBand: true}, nil)
			require.Error(t, err)
			line := flows.Explain(err)
			t.Log(err)
			assert.NotContains(t, err.Error(), "\n")
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "pass --proxy-url http://HOST:PORT")
			assert.Contains(t, line.Hint, "liqoctl peer")

			_, err = provider.TenantNamespace(ctx, consumerID)
			assert.True(t, kube.IsNotFound(err), "nothing written on the provider: %v", err)
			if !tc.consumerSet {
				_, err = consumer.TenantNamespace(ctx, providerID)
				assert.True(t, kube.IsNotFound(err), "nothing written on the consumer: %v", err)
			}
			_, err = consumer.ControlPlaneIdentityFor(ctx, providerID)
			assert.True(t, kube.IsNotFound(err), "no Identity: %v", err)
		})
	}
}

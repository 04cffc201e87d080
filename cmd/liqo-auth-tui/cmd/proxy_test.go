//go:build cluster

package cmd_test

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// tunnels lists the targets the proxy opened a tunnel to, in order.
func tunnels(p *lab.Proxy) []string {
	var out []string
	for _, c := range p.Connects() {
		if c.Status == 200 {
			out = append(out, c.Target)
		}
	}
	return out
}

// With --proxy-url the proxy travels Tenant → authParams → Identity →
// kubeconfig Secret, and everything that reaches the provider goes through
// a real CONNECT proxy: the tool, the kubeconfig, verify. Without the
// proxy, verify fails with one line naming it.
func TestAuthenticateThroughProxy(t *testing.T) {
	provider, consumer := initSide(t, 0, "proxy-provider"), initSide(t, 1, "proxy-consumer")
	ctx := labtest.Context(t)
	proxy, err := lab.StartConnectProxy(ctx, nil)
	require.NoError(t, err)
	t.Cleanup(proxy.Stop)
	server, err := url.Parse(clusters(t)[0].Config.Host)
	require.NoError(t, err)
	providerAddr := server.Host

	authArgs := consumer.args("authenticate", "--remote-kubeconfig", provider.kubeconfig,
		"--remote-liqo-namespace", provider.liqoNamespace, "--proxy-url", proxy.URL())
	code, _, errOut := run(authArgs...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, tunnels(proxy), providerAddr, "the tool reaches the provider through the proxy")

	// Provider: spec.proxyURL, copied into status.authParams (§5.2, §6.4).
	pc, err := kube.Connect(kube.KubeconfigOptions{Path: provider.kubeconfig, LiqoNamespace: provider.liqoNamespace})
	require.NoError(t, err)
	tenant, err := pc.TenantFor(ctx, "", consumer.id)
	require.NoError(t, err)
	assert.Equal(t, proxy.URL(), tenant.Spec.ProxyURL)
	require.NotNil(t, tenant.Status.AuthParams)
	assert.Equal(t, proxy.URL(), tenant.Status.AuthParams.ProxyURL)

	// Consumer: the Identity and the kubeconfig's proxy-url (§8).
	cc, err := kube.Connect(kube.KubeconfigOptions{Path: consumer.kubeconfig, LiqoNamespace: consumer.liqoNamespace})
	require.NoError(t, err)
	identity, err := cc.ControlPlaneIdentityFor(ctx, provider.id)
	require.NoError(t, err)
	assert.Equal(t, proxy.URL(), identity.Spec.AuthParams.ProxyURL)
	secret, err := cc.KubeconfigSecretFor(ctx, provider.id)
	require.NoError(t, err)
	kubeconfig, err := clientcmd.Load(secret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	require.Contains(t, kubeconfig.Clusters, provider.id)
	assert.Equal(t, proxy.URL(), kubeconfig.Clusters[provider.id].ProxyURL)

	// A client of that kubeconfig authenticates as the consumer, through
	// the proxy: one more tunnel to the provider.
	cfg, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	kc, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	assert.Equal(t, proxy.URL(), kc.Proxy)
	before := len(tunnels(proxy))
	user, _, err := kc.WhoAmI(ctx)
	require.NoError(t, err)
	assert.Equal(t, consumer.id, user)
	require.Greater(t, len(tunnels(proxy)), before)
	assert.Equal(t, providerAddr, tunnels(proxy)[before])

	// verify goes through it too.
	before = len(tunnels(proxy))
	code, out, errOut := run(consumer.args("verify", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, out, "Authenticated as:    "+consumer.id)
	assert.Greater(t, len(tunnels(proxy)), before)

	// Liqo's --in-band with the proxy's address: accepted, and said so.
	code, _, errOut = run(append(authArgs, "--in-band")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "network fabric")
	assert.Contains(t, errOut, "using --proxy-url "+proxy.URL())

	// The proxy is down: one line that names it and says what to check.
	proxy.Stop()
	code, out, errOut = run(consumer.args("verify", "--remote-cluster-id", provider.id)...)
	assert.Equal(t, cmd.ExitFailure, code)
	assert.Empty(t, out)
	lines := errorLines(errOut)
	require.Len(t, lines, 1, errOut)
	t.Log(lines[0])
	assert.Contains(t, lines[0], "through the proxy "+proxy.URL()+": connect: connection refused")
	assert.Contains(t, lines[0], "is the proxy running?")

	// unauthenticate reaches the provider through its --proxy-url too: with
	// the proxy down it says so, and it refuses a bad URL before anything.
	unauth := consumer.args("unauthenticate", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)
	code, _, errOut = run(append(unauth, "--proxy-url", proxy.URL())...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Contains(t, errOut, "through the proxy "+proxy.URL())
	code, _, errOut = run(append(unauth, "--proxy-url", "proxy:3128")...)
	assert.Equal(t, cmd.ExitUsage, code, errOut)
}

// --in-band alone where the proxy cannot be derived and bad --proxy-url
// values are usage errors, --in-band alone without Liqo's networking
// objects and a Tenant with a bad spec.proxyURL are refused: one line
// each, and nothing written on either cluster.
func TestProxyFlagUsageErrorsWriteNothing(t *testing.T) {
	provider, consumer := initSide(t, 0, "proxyuse-provider"), initSide(t, 1, "proxyuse-consumer")
	dir, _ := manualFlow(t, provider, consumer)
	tenantYAML, err := os.ReadFile(filepath.Join(dir, "tenant.yaml"))
	require.NoError(t, err)
	badTenant, err := artifact.DecodeTenant(tenantYAML)
	require.NoError(t, err)
	badTenant.Spec.ProxyURL = "proxy:3128"
	badTenantFile := writeFile(t, dir, "badproxy.yaml", encode(t, badTenant))
	auth := func(extra ...string) []string {
		return consumer.args(append([]string{"authenticate", "--remote-kubeconfig", provider.kubeconfig,
			"--remote-liqo-namespace", provider.liqoNamespace}, extra...)...)
	}
	tenant := func(extra ...string) []string {
		return consumer.args(append([]string{"generate", "tenant", "--remote-cluster-id", provider.id, "--nonce", mustNonce(t)}, extra...)...)
	}
	inBand := "--in-band is Liqo's in-band peering"
	cases := []struct {
		name string
		args []string
		want []string
		code int
	}{
		{"tenant with a bad proxyURL", provider.args("apply", "tenant", "-f", badTenantFile), []string{"tenant spec.proxyURL", "scheme must be"}, cmd.ExitFailure},
		{"authenticate --in-band alone, no api-server-proxy", auth("--in-band"),
			[]string{"the provider has no IP api-server-proxy in namespace " + provider.liqoNamespace, "pass --proxy-url http://HOST:PORT", "liqoctl peer"}, cmd.ExitFailure},
		{"generate tenant --in-band alone", tenant("--in-band"), []string{inBand, "network fabric", "reaches both clusters", "--proxy-url http://HOST:PORT"}, cmd.ExitUsage},
		{"no scheme", auth("--proxy-url", "127.0.0.1:3128"), []string{"--proxy-url", "not a URL"}, cmd.ExitUsage},
		{"ftp scheme", auth("--proxy-url", "ftp://proxy:21", "--in-band"), []string{"--proxy-url", "scheme must be http, https or socks5"}, cmd.ExitUsage},
		{"no host", tenant("--proxy-url", "http://"), []string{"--proxy-url", "no host"}, cmd.ExitUsage},
		{"bad port", tenant("--proxy-url", "http://proxy:70000"), []string{"--proxy-url", "not between 1 and 65535"}, cmd.ExitUsage},
		{"--batch --in-band alone", consumer.args("--batch", "--role", "consumer", "--remote-cluster-id", provider.id, "--nonce", mustNonce(t), "--in-band"),
			[]string{inBand, "network fabric"}, cmd.ExitUsage},
		{"--batch bad proxy", consumer.args("--batch", "--remote-kubeconfig", provider.kubeconfig, "--proxy-url", "http://proxy:0"),
			[]string{"--proxy-url", "not between 1 and 65535"}, cmd.ExitUsage},
	}
	ctx := labtest.Context(t)
	before := []map[string]int{objectCount(t, ctx, clusters(t)[0].KubeconfigPath), objectCount(t, ctx, clusters(t)[1].KubeconfigPath)}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Empty(t, out)
			lines := errorLines(errOut)
			require.Len(t, lines, 1, errOut)
			t.Log(lines[0])
			for _, w := range tc.want {
				assert.Contains(t, lines[0], w)
			}
		})
	}
	after := []map[string]int{objectCount(t, ctx, clusters(t)[0].KubeconfigPath), objectCount(t, ctx, clusters(t)[1].KubeconfigPath)}
	assert.Equal(t, before, after, "usage errors must write nothing")
}

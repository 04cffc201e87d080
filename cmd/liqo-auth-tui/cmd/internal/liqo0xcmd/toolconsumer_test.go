//go:build cluster

package liqo0xcmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// This tool as the 0.x consumer of "plain": apply peer-info writes the
// identity's kubeconfig, which authenticates to the provider as plain's
// cluster ID in group liqo.io; unauthenticate --yes on both sides leaves
// that certificate authorized for nothing.
func testToolConsumerKubeconfigOut(t *testing.T, ctx context.Context, p *liqo0xLab) {
	t.Cleanup(p.cleanTool(t))
	file, _ := generate(t, p.provider)
	out := filepath.Join(t.TempDir(), "provider.kubeconfig")
	r := runOK(t, "apply", "peer-info", "-f", file, "--kubeconfig", p.plain.KubeconfigPath, "--kubeconfig-out", out)
	t.Logf("timing: apply peer-info (this tool as the consumer) in %s", r.elapsed.Round(time.Millisecond))
	assert.Contains(t, r.err, "TLS certificate not verified", "says TLS verification was skipped (the harness certificate has no SAN)")
	assert.NotContains(t, r.all(), p.token)
	requireMode(t, out)
	kubeconfig, err := os.ReadFile(out)
	require.NoError(t, err)
	cfg := realliqo0x.IdentityConfig(t, kubeconfig, p.provider.Config)
	user, groups := realliqo0x.WhoAmI(t, ctx, cfg)
	assert.Equal(t, plainID, user, "--kubeconfig-out authenticates as the consumer's cluster ID")
	assert.Contains(t, groups, "liqo.io")
	tenants := realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, plainID)
	require.Len(t, tenants, 1)
	require.True(t, realliqo0x.CanCreateResourceRequests(t, ctx, cfg, tenants[0]), "the identity is authorized")

	v := runOK(t, "verify", "--remote-cluster-id", providerID, "--kubeconfig", p.plain.KubeconfigPath)
	assert.Contains(t, v.out, "Authenticated as:    "+plainID+" [liqo.io")
	requireVerifyShowsLiqo0xPermissions(t, v, tenants[0])

	runOK(t, "unauthenticate", "--yes", "--kubeconfig", p.plain.KubeconfigPath, "--remote-kubeconfig", p.provider.KubeconfigPath)
	remove, kept, err := liqo0x.On(p.pl).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, remove)
	assert.Empty(t, kept)
	left, err := liqo0x.On(p.prov).ProviderLeftovers(ctx, plainID)
	require.NoError(t, err)
	assert.Empty(t, left)
	assert.False(t, realliqo0x.CanCreateResourceRequests(t, ctx, cfg, tenants[0]), "the old certificate is authorized for nothing")
}

// --batch --role consumer --peer-info-file is the same consumer step;
// unauthenticate --one-sided on the consumer then says what is left on the
// provider and how to remove it.
func testToolConsumerBatch(t *testing.T, ctx context.Context, p *liqo0xLab) {
	t.Cleanup(p.cleanTool(t))
	file, _ := generate(t, p.provider)
	r := runOK(t, "--batch", "--role", "consumer", "--remote-cluster-id", providerID, "--peer-info-file", file, "--kubeconfig", p.plain.KubeconfigPath)
	assert.Contains(t, r.err, "Consumer "+plainID+" is authenticated with provider "+providerID)
	assert.NotContains(t, r.all(), p.token)
	tenants := realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, plainID)
	require.Len(t, tenants, 1)

	un := runOK(t, "unauthenticate", "--yes", "--one-sided", "--remote-cluster-id", providerID, "--kubeconfig", p.plain.KubeconfigPath)
	requireOneSidedHint(t, un, plainID)
	remove, _, err := liqo0x.On(p.pl).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, remove)
	assert.Equal(t, tenants, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, plainID), "one-sided: the provider untouched")
	requireNoFalseAllClear(t, un)
}

// A wrong token: non-zero within seconds, one line naming the cause, no
// token anywhere, nothing written on either side.
func testWrongToken(t *testing.T, ctx context.Context, p *liqo0xLab, consumer *lab.Cluster, cons *kube.Cluster) {
	if consumer == p.plain {
		t.Cleanup(p.cleanTool(t))
	} else {
		t.Cleanup(p.cleanLiqo(t))
	}
	file, _ := generate(t, p.provider)
	info := peerInfoOf(t, file)
	info.Token = realliqo0x.WrongToken(t)
	wrong := writeFile(t, "wrong-token", encode(t, info)+"\n")
	provBefore, consBefore := snapshot(t, ctx, p.prov), snapshot(t, ctx, cons)

	r := run(t, "", "apply", "peer-info", "-f", wrong, "--kubeconfig", consumer.KubeconfigPath)
	t.Logf("timing: wrong token reported in %s", r.elapsed.Round(time.Millisecond))
	assert.NotZero(t, r.code)
	assert.Less(t, r.elapsed, 15*time.Second)
	errs := r.lines("ERRO")
	require.Len(t, errs, 1, "one line: %s", r.err)
	assert.Contains(t, errs[0], "wrong token")
	assert.NotContains(t, r.all(), info.Token)
	assert.NotContains(t, r.all(), p.token)
	assert.Equal(t, provBefore, snapshot(t, ctx, p.prov), "nothing written on the provider")
	assert.Equal(t, consBefore, snapshot(t, ctx, cons), "nothing written on the consumer")
}

// The provider issues one identity per cluster ID: once the consumer lost
// its kubeconfig Secret, applying again is refused with one line naming the
// provider's object and --reissue; authenticate --reissue with both
// kubeconfigs replaces it.
func testSecondRequest(t *testing.T, ctx context.Context, p *liqo0xLab) {
	t.Cleanup(p.cleanTool(t))
	file, _ := generate(t, p.provider)
	runOK(t, "apply", "peer-info", "-f", file, "--kubeconfig", p.plain.KubeconfigPath)
	tenants := realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, plainID)
	require.Len(t, tenants, 1)
	require.NoError(t, p.pl.Kube.CoreV1().Secrets(kube.TenantNamespaceName(providerID)).Delete(ctx,
		kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID)), metav1.DeleteOptions{}))

	provBefore := snapshot(t, ctx, p.prov)
	r := run(t, "", "apply", "peer-info", "-f", file, "--kubeconfig", p.plain.KubeconfigPath)
	assert.NotZero(t, r.code)
	errs := r.lines("ERRO")
	require.Len(t, errs, 1, "one line: %s", r.err)
	assert.Contains(t, errs[0], "liqo-remote-certificate", "names the provider's object")
	if !strings.Contains(errs[0], tenants[0]) {
		assert.Contains(t, errs[0], liqo0x.ClusterIDLabel+"="+plainID, "names the provider's namespace, or how to find it")
	}
	assert.Contains(t, errs[0], "--reissue")
	assert.NotContains(t, r.all(), p.token)
	assert.Equal(t, provBefore, snapshot(t, ctx, p.prov), "nothing deleted on the provider without --reissue")

	re := run(t, "", "authenticate", "--reissue", "--kubeconfig", p.plain.KubeconfigPath, "--remote-kubeconfig", p.provider.KubeconfigPath)
	require.Zero(t, re.code, re.err)
	assert.Contains(t, re.err, "is authenticated with provider "+providerID)
	assert.NotContains(t, re.all(), p.token)
	v := runOK(t, "verify", "--remote-cluster-id", providerID, "--kubeconfig", p.plain.KubeconfigPath)
	assert.Contains(t, v.out, "Authenticated as:    "+plainID+" [liqo.io")
}

// A provider whose auth server accepts any token (the chart's liqo-auth
// Deployment says --enable-authentication=false): generate peer-info and
// info warn loudly, and so does apply.
func testAuthenticationDisabled(t *testing.T, ctx context.Context, p *liqo0xLab) {
	t.Cleanup(p.cleanTool(t))
	open := realliqo0x.StartOpenAuthServer(t, p.provider, providerID, providerName)
	realliqo0x.CreateAuthDeployment(t, ctx, p.provider.Config, "--enable-authentication=false")

	file, gen := generate(t, p.provider, "--auth-url", open.URL)
	requireWarning(t, gen, handshake.AuthenticationDisabledWarning(open.URL))
	assert.True(t, peerInfoOf(t, file).AuthenticationDisabled)

	info := runOK(t, "info", "--kubeconfig", p.provider.KubeconfigPath)
	requireWarning(t, info, "disabled")
	assert.Regexp(t, `Liqo authentication:\s+DISABLED`, info.out)

	apply := runOK(t, "apply", "peer-info", "-f", file, "--kubeconfig", p.plain.KubeconfigPath)
	requireWarning(t, apply, "DISABLED")
}

// requireWarning checks a WARN line (or, for commands that print a report,
// stdout's loud line) carries substr.
func requireWarning(t *testing.T, r result, substr string) {
	t.Helper()
	for _, l := range r.lines("WARN") {
		if strings.Contains(strings.ToLower(l), strings.ToLower(substr)) {
			return
		}
	}
	t.Errorf("liqo-auth-tui %s: no WARN line says %q:\n%s%s", r.commandLine, substr, r.out, r.err)
}

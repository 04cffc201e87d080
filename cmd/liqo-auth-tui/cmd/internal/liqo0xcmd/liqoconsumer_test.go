//go:build cluster

package liqo0xcmd_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// The manual path between two Liqo 0.x clusters, command by command:
// generate peer-info on the provider, apply peer-info on the consumer,
// verify, then unauthenticate (refused without --yes off a terminal,
// complete with it).
func testManualBetweenLiqoClusters(t *testing.T, ctx context.Context, p *liqo0xLab) {
	t.Cleanup(p.cleanLiqo(t))

	file, gen := generate(t, p.provider)
	requireMode(t, file)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	line := string(data)
	assert.True(t, strings.HasPrefix(line, handshake.PeerInfoPrefix), "%q", line)
	assert.Equal(t, 1, strings.Count(line, "\n"), "one line")
	assert.True(t, strings.HasSuffix(line, "\n"))
	assert.Empty(t, gen.out, "the peer info went to the file")
	assert.NotContains(t, gen.all(), p.token, "the token is masked")
	assert.Contains(t, gen.err, peerinfo.MaskToken(p.token))
	assert.Contains(t, gen.err, "liqoctl peer out-of-band "+providerName, "liqoctl's equivalent")
	assert.Contains(t, gen.err, "apply peer-info -f "+file, "the consumer's next command")
	pin := regexp.MustCompile(`apply peer-info -f \S+ --provider-fingerprint (SHA256:\S{43})`).FindStringSubmatch(gen.err)
	require.NotNil(t, pin, "the consumer's next command pins the auth server: %s", gen.err)
	info := peerInfoOf(t, file)
	assert.Equal(t, providerID, info.ClusterID)
	assert.Equal(t, providerName, info.ClusterName)
	assert.Equal(t, realliqo0x.AuthURL(t, ctx, p.provider.Config), info.AuthURL)
	assert.Equal(t, p.token, info.Token)
	assert.Equal(t, peerinfo.V04, info.Line)

	var jsonOut string // the JSON form, applied below: -o json is read back
	t.Run("json", func(t *testing.T) {
		r := runOK(t, "generate", "peer-info", "--kubeconfig", p.provider.KubeconfigPath, "-o", "json")
		jsonOut = r.out
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.out), &out), "stdout is JSON: %s", r.out)
		assert.Equal(t, providerID, out["clusterID"])
		assert.Equal(t, providerName, out["clusterName"])
		assert.Equal(t, info.AuthURL, out["authURL"])
		assert.Equal(t, p.token, out["token"])
		assert.Equal(t, strings.TrimSpace(line), out["peerInfo"])
		assert.Contains(t, out["liqoctlCommand"], "liqoctl peer out-of-band")
		assert.NotContains(t, r.err, p.token, "stderr masks it")
	})
	t.Run("show-token", func(t *testing.T) {
		_, r := generate(t, p.provider, "--show-token")
		assert.Contains(t, r.err, "--auth-token "+p.token, "liqoctl's equivalent unmasked")
	})

	require.NotEmpty(t, jsonOut)
	apply := runOK(t, "apply", "peer-info", "-f", writeFile(t, "peer-info.json", jsonOut), "--kubeconfig", p.consumer.KubeconfigPath,
		"--provider-fingerprint", pin[1]) // the real auth server passes its pin
	t.Logf("timing: apply peer-info (Liqo 0.x consumer) → Established in %s (liqoctl peer out-of-band: 1.3–1.7 s)", apply.elapsed.Round(time.Millisecond))
	assert.Contains(t, apply.err, "Established")
	assert.Contains(t, apply.err, "verify --remote-cluster-id "+providerID)
	assert.NotContains(t, apply.all(), p.token)
	tenants := realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID)
	require.Len(t, tenants, 1)

	v := runOK(t, "verify", "--remote-cluster-id", providerID, "--kubeconfig", p.consumer.KubeconfigPath)
	assert.Contains(t, v.out, "Authenticated as:    "+consumerID+" [liqo.io", "the identity's user and group")
	assert.Contains(t, v.out, tenants[0])
	assert.NotContains(t, v.all(), p.token)
	requireVerifyShowsLiqo0xPermissions(t, v, tenants[0])

	id, err := liqo0x.On(p.cons).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	require.True(t, realliqo0x.CanCreateResourceRequests(t, ctx, id.Config, tenants[0]), "the identity is authorized")

	t.Run("unauthenticate without --yes off a terminal", func(t *testing.T) {
		provBefore, consBefore := snapshot(t, ctx, p.prov), snapshot(t, ctx, p.cons)
		r := run(t, "", "unauthenticate", "--kubeconfig", p.consumer.KubeconfigPath, "--remote-kubeconfig", p.provider.KubeconfigPath)
		assert.NotZero(t, r.code)
		assert.Contains(t, r.err, tenants[0], "lists the provider's tenant namespace")
		assert.Contains(t, r.err, "--yes", "the hint")
		assert.Equal(t, provBefore, snapshot(t, ctx, p.prov), "nothing deleted on the provider")
		assert.Equal(t, consBefore, snapshot(t, ctx, p.cons), "nothing deleted on the consumer")
	})

	un := runOK(t, "unauthenticate", "--yes", "--kubeconfig", p.consumer.KubeconfigPath, "--remote-kubeconfig", p.provider.KubeconfigPath)
	t.Logf("timing: unauthenticate --yes in %s", un.elapsed.Round(time.Millisecond))
	assert.Contains(t, un.err, "authorized for nothing")
	requireNothingLeft(t, ctx, p)
	assert.False(t, realliqo0x.CanCreateResourceRequests(t, ctx, id.Config, tenants[0]), "the old certificate is authorized for nothing")
}

// requireNothingLeft checks both sides hold nothing of the pair's
// authentication, by what the tool itself lists.
func requireNothingLeft(t *testing.T, ctx context.Context, p *liqo0xLab) {
	t.Helper()
	remove, kept, err := liqo0x.On(p.cons).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, remove, "the consumer holds nothing of provider %s", providerID)
	assert.Empty(t, kept)
	left, err := liqo0x.On(p.prov).ProviderLeftovers(ctx, consumerID)
	require.NoError(t, err)
	assert.Empty(t, left, "the provider holds nothing of consumer %s", consumerID)
	assert.Empty(t, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID))
}

// The automated path between two Liqo 0.x clusters: authenticate with both
// kubeconfigs; a re-run reports the identity held and sends no token; then
// unauthenticate one side at a time.
func testAutomatedBetweenLiqoClusters(t *testing.T, ctx context.Context, p *liqo0xLab) {
	t.Cleanup(p.cleanLiqo(t))

	r := runOK(t, "authenticate", "--kubeconfig", p.consumer.KubeconfigPath, "--remote-kubeconfig", p.provider.KubeconfigPath)
	t.Logf("timing: authenticate (Liqo 0.x consumer) in %s (liqoctl peer out-of-band: 1.3–1.7 s)", r.elapsed.Round(time.Millisecond))
	assert.Contains(t, r.err, "is authenticated with provider "+providerID)
	assert.NotContains(t, r.all(), p.token)
	tenants := realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID)
	require.Len(t, tenants, 1)

	again := runOK(t, "authenticate", "--kubeconfig", p.consumer.KubeconfigPath, "--remote-kubeconfig", p.provider.KubeconfigPath)
	assert.Contains(t, again.err, "already authenticated")
	assert.Contains(t, again.err, "NOT sent")
	assert.NotContains(t, again.all(), p.token)
	assert.Equal(t, tenants, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID), "no new identity")

	id, err := liqo0x.On(p.cons).IdentityFor(ctx, providerID)
	require.NoError(t, err)

	consumerSide := runOK(t, "unauthenticate", "--yes", "--one-sided", "--remote-cluster-id", providerID, "--kubeconfig", p.consumer.KubeconfigPath)
	requireOneSidedHint(t, consumerSide, consumerID)
	remove, _, err := liqo0x.On(p.cons).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	assert.Empty(t, remove)
	assert.Equal(t, tenants, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID), "one-sided: the provider untouched")
	require.True(t, realliqo0x.CanCreateResourceRequests(t, ctx, id.Config, tenants[0]), "the identity is authorized")
	requireNoFalseAllClear(t, consumerSide)

	runOK(t, "unauthenticate", "--yes", "--one-sided", "--remote-cluster-id", consumerID, "--remote-kubeconfig", p.provider.KubeconfigPath)
	requireNothingLeft(t, ctx, p)
	assert.False(t, realliqo0x.CanCreateResourceRequests(t, ctx, id.Config, tenants[0]), "the old certificate is authorized for nothing")
}

// requireOneSidedHint: unauthenticate --one-sided on the consumer says what
// is left on the provider and how its admin removes it.
func requireOneSidedHint(t *testing.T, r result, consumerID string) {
	t.Helper()
	assert.Contains(t, r.err, "kubectl delete namespace -l "+liqo0x.ClusterIDLabel+"="+consumerID, "the provider's tenant namespace and how to delete it")
	assert.Contains(t, r.err, liqo0x.RemoteTokenPrefix+consumerID)
	assert.Contains(t, r.err, liqo0x.RemoteTenantCSRLabel, "its CSRs")
}

// requireNoFalseAllClear: after cleaning the consumer only, the provider
// still grants the old certificate its permissions (checked above), so the
// command must not claim it is authorized for nothing.
func requireNoFalseAllClear(t *testing.T, r result) {
	t.Helper()
	assert.NotContains(t, r.err, "authorized for nothing", "the provider still grants the certificate")
	requireWarning(t, r, "still authorizes")
}

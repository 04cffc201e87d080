//go:build cluster

package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The wizard's third way: the provider's wizard makes the peering user
// (its kubeconfig masked on screen), the consumer's admin probes the
// provider with it (restricted: no key, no Lease, but the cluster ID),
// `info` says so in one line, and the automated flow completes with it.
func TestPeeringUserThroughTheWizard(t *testing.T) {
	provider, consumer := initSide(t, 0, "puw-provider"), initSide(t, 1, "puw-consumer")
	startController(t, provider, "")
	ctx := labtest.Context(t)
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	discard := func(handshake.Event) {}
	admin := tui.ClusterRef{Kubeconfig: provider.kubeconfig, Namespace: provider.liqoNamespace}

	art, err := b.GeneratePeeringUser(ctx, admin, consumer.id, discard)
	require.NoError(t, err)
	assert.Equal(t, handshake.KindPeeringUser, art.Kind)
	assert.True(t, art.Sensitive)
	assert.Equal(t, provider.id, art.FromID)
	assert.Equal(t, consumer.id, art.ForID)
	assert.Regexp(t, `^liqo-peer-user-puw-consumer-[0-9a-f]{32}$`, art.User)
	assert.WithinDuration(t, time.Now().AddDate(1, 0, 0), art.NotAfter, 48*time.Hour)
	assert.Contains(t, art.Shown(), "client-key-data: REDACTED")
	assert.Contains(t, art.Shown(), "client-certificate-data: DATA+OMITTED")
	for _, field := range []string{"client-key-data", "client-certificate-data"} {
		m := regexp.MustCompile(field + `: (LS0t\S+)`).FindStringSubmatch(string(art.Data))
		require.Len(t, m, 2, "%s in the kubeconfig", field)
		assert.NotContains(t, art.Shown(), m[1], "%s shown", field)
	}
	file := filepath.Join(t.TempDir(), "peering-user.kubeconfig")
	require.NoError(t, os.WriteFile(file, art.Data, 0o600))
	eventuallyMay(t, file, provider.liqoNamespace, kube.Access{Verb: "list", Resource: "configmaps", Namespace: provider.liqoNamespace}, true)

	// The detect screen's probe.
	remote := tui.ClusterRef{Kubeconfig: file, Namespace: provider.liqoNamespace}
	info, err := b.Probe(ctx, remote)
	require.NoError(t, err)
	assert.True(t, info.Restricted)
	assert.Equal(t, provider.id, info.ClusterID)
	assert.Equal(t, art.User, info.User)
	assert.Empty(t, info.KeyFingerprint)
	assert.False(t, info.Controller)
	assert.False(t, info.LiqoInstalled)
	assert.True(t, info.Ready())
	full, err := b.Probe(ctx, admin)
	require.NoError(t, err)
	assert.False(t, full.Restricted)
	assert.True(t, full.Controller)
	assert.NotEmpty(t, full.KeyFingerprint)

	// info: one restricted line instead of the key and controller.
	code, out, errOut := run("info", "--kubeconfig", file, "--liqo-namespace", provider.liqoNamespace)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Regexp(t, `(?m)^Cluster ID: +`+provider.id+`$`, out)
	assert.Regexp(t, `(?m)^Authenticated as: +`+art.User+` `, out)
	assert.Len(t, regexp.MustCompile(`(?m)^Restricted user: +key fingerprint and controller not visible$`).FindAllString(out, -1), 1, out)
	assert.NotContains(t, out, "Key fingerprint")
	assert.NotContains(t, out, "liqo-auth controller:")
	code, out, errOut = run("info", "--kubeconfig", file, "--liqo-namespace", provider.liqoNamespace, "-o", "json")
	require.Equal(t, cmd.ExitOK, code, errOut)
	var asJSON map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &asJSON))
	assert.Equal(t, true, asJSON["restricted"])
	assert.Equal(t, provider.id, asJSON["clusterID"])

	// Detect goes on to the automated flow: the consumer's admin alone.
	local := tui.ClusterRef{Kubeconfig: consumer.kubeconfig, Namespace: consumer.liqoNamespace}
	res, err := b.Authenticate(ctx, local, remote, discard)
	require.NoError(t, err)
	assert.Equal(t, provider.id, res.ProviderID)
	assert.Equal(t, consumer.id, res.ConsumerID)
	assert.NotEmpty(t, res.KubeconfigSecret)
	v, err := b.Verify(ctx, local, provider.id, discard)
	require.NoError(t, err)
	assert.NotEmpty(t, v.Allowed)
}

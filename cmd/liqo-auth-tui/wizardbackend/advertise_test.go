//go:build cluster

package wizardbackend_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The advertise screen's backend: what an in-process provider advertises,
// edits checked before anything is kept, and a kept edit shown next time.
func TestWizardBackendAdvertise(t *testing.T) {
	lc := clusters(t)[0]
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	ref := tui.ClusterRef{Kubeconfig: lc.KubeconfigPath, Namespace: "liqo-wizard-advertise"}
	ctx := labtest.Context(t)

	adv, err := b.Advertised(ctx, ref, "wizard-consumer")
	require.NoError(t, err)
	assert.Equal(t, flows.AdvertiseKubeconfig, adv.Source)
	assert.Equal(t, flows.EngineInProcess, flows.Engine(adv.Engine))
	assert.NotEmpty(t, adv.CAFingerprint)
	assert.False(t, adv.Fixed)

	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o600))
	for edit, want := range map[tui.AdvertiseEdit]string{
		{APIServer: "http://plain.example"}:             "only https",
		{CAFile: filepath.Join(dir, "missing.pem")}:     "reading the CA file",
		{APIServer: "api.example:6443", CAFile: notPEM}: "give a PEM certificate",
	} {
		_, err := b.SetAdvertised(ctx, ref, "wizard-consumer", edit, handshake.Discard)
		assert.ErrorContains(t, err, want)
	}
	adv, err = b.Advertised(ctx, ref, "wizard-consumer")
	require.NoError(t, err)
	assert.Equal(t, flows.AdvertiseKubeconfig, adv.Source, "a refused edit is not kept")

	adv, err = b.SetAdvertised(ctx, ref, "wizard-consumer", tui.AdvertiseEdit{APIServer: "api.example:6443", TrustedCA: true}, handshake.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example:6443", adv.APIServer)
	assert.True(t, adv.TrustedCA)
	adv, err = b.Advertised(ctx, ref, "wizard-consumer")
	require.NoError(t, err)
	assert.Equal(t, flows.AdvertiseOverride, adv.Source, "kept for the flows that follow")
	assert.Equal(t, "https://api.example:6443", adv.APIServer)
}

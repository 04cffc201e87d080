//go:build cluster

package liqo0xcmd_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
)

// A consumer running Liqo v1 cannot authenticate with a Liqo 0.x provider:
// authenticate and apply peer-info refuse it at detection with one line
// and write nothing on either side. It runs last: the CRD makes "plain" a
// Liqo v1 cluster for good.
func testV1ConsumerRefused(t *testing.T, ctx context.Context, p *liqo0xLab) {
	realliqo0x.ServeLiqoV1(t, ctx, p.plain.Config)
	file, _ := generate(t, p.provider)

	for _, args := range [][]string{
		{"authenticate", "--kubeconfig", p.plain.KubeconfigPath, "--remote-kubeconfig", p.provider.KubeconfigPath},
		{"apply", "peer-info", "-f", file, "--kubeconfig", p.plain.KubeconfigPath},
	} {
		provBefore, consBefore := snapshot(t, ctx, p.prov), snapshot(t, ctx, p.pl)
		r := run(t, "", args...)
		assert.NotZero(t, r.code)
		errs := r.lines("ERRO")
		if assert.Len(t, errs, 1, "one line") {
			assert.Contains(t, errs[0], "Liqo v1")
			if args[0] == "authenticate" {
				assert.NotContains(t, errs[0], "peer info", "no peer info was passed: worded for the automated flow")
				assert.Contains(t, errs[0], "cannot authenticate with Liqo 0.x provider "+providerName)
			} else {
				assert.Contains(t, errs[0], "The peer info cannot be used on this cluster")
			}
		}
		assert.NotContains(t, r.all(), p.token)
		assert.Equal(t, provBefore, snapshot(t, ctx, p.prov), "nothing written on the provider")
		assert.Equal(t, consBefore, snapshot(t, ctx, p.pl), "nothing written on the consumer")
	}
}

//go:build cluster

package legacycmd_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/liqoproc"
)

// v1ForeignClusterCRD is what tells Liqo v1 apart: its ForeignClusters in
// core.liqo.io (the schema does not matter to detection).
const v1ForeignClusterCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foreignclusters.core.liqo.io
spec:
  group: core.liqo.io
  scope: Cluster
  names: {plural: foreignclusters, singular: foreigncluster, kind: ForeignCluster, listKind: ForeignClusterList}
  versions:
  - name: v1beta1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// A consumer running Liqo v1 cannot authenticate with a Liqo 0.x provider:
// authenticate and apply peer-info refuse it at detection with one line
// and write nothing on either side. It runs last: the CRD makes "plain" a
// Liqo v1 cluster for good.
func testV1ConsumerRefused(t *testing.T, ctx context.Context, p *legacyLab) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "foreignclusters.yaml"), []byte(v1ForeignClusterCRD), 0o600))
	v1 := liqoproc.Build{Label: "Liqo v1", FieldManager: "legacycmd-test"}
	require.NoError(t, v1.ApplyCRDs(ctx, p.plain.Config, dir))
	// Discovery has no watch: an established CRD may reach it a moment later.
	require.Eventually(t, func() bool {
		r, err := p.pl.DetectRelease(ctx)
		require.NoError(t, err)
		return r.Generation == kube.GenerationV1
	}, 10*time.Second, 50*time.Millisecond, "discovery never served core.liqo.io/v1beta1 foreignclusters")
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
		}
		assert.NotContains(t, r.all(), p.token)
		assert.Equal(t, provBefore, snapshot(t, ctx, p.prov), "nothing written on the provider")
		assert.Equal(t, consBefore, snapshot(t, ctx, p.pl), "nothing written on the consumer")
	}
}

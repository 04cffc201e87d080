//go:build cluster

package liqointerop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/realliqov1"
)

// releaseID is a cluster ID of the tests of one release ("v1.1.2" ->
// "<prefix>-v1-1-2"): the releases take turns on the same lab clusters.
func releaseID(prefix, release string) string {
	return prefix + "-" + strings.ReplaceAll(release, ".", "-")
}

// Every Liqo v1 release liqo-peer is built from starts on the same lab
// cluster, one after the other over the previous release's CRDs (they are
// cluster-wide), with both sides' reconcilers and its crd-replicator:
// Liqo's key initialisation wrote the cluster's authentication keys.
func TestEveryReleaseStarts(t *testing.T) {
	cs := testLab.Clusters(t)
	for _, release := range realliqov1.Releases {
		t.Run(release, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			id := releaseID("liqo-start", release)
			c := liqotest.LiqoReleaseCluster(t, ctx, cs[0], release, id, true, true)
			realliqov1.StartReplicator(t, cs[0].KubeconfigPath, realliqov1.ReplicatorOptions{Release: release, ClusterID: id})
			keys, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, kube.AuthKeysSecretName, metav1.GetOptions{})
			require.NoError(t, err)
			assert.Contains(t, liqotest.Managers(keys), liqotest.LiqoManager+"/")
		})
	}
}

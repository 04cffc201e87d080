//go:build cluster

package liqointerop_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// forEachRelease runs test once per Liqo v1 release liqo-peer is built
// from (realliqov1.Releases), as subtests named by release, one after the
// other on the package's lab: each installs its release's CRDs over the
// previous one's (they are cluster-wide) and runs its own liqo-peer.
func forEachRelease(t *testing.T, test func(t *testing.T, release string)) {
	for _, release := range realliqov1.Releases {
		t.Run(release, func(t *testing.T) { test(t, release) })
	}
}

// releaseID is a cluster ID of the tests of one release ("v1.1.2" ->
// "<prefix>-v1-1-2"): the releases take turns on the same lab clusters,
// each pair with IDs and namespaces of its own.
func releaseID(prefix, release string) string {
	return prefix + "-" + strings.ReplaceAll(release, ".", "-")
}

// liqoSide says which side of the handshake Liqo serves in a test.
type liqoSide bool

const (
	liqoProvides liqoSide = true
	liqoConsumes liqoSide = false
)

// pair is one release's pair of clusters in a test: Liqo on the lab's
// "liqo" cluster, this project on "ours".
type pair struct {
	ctx             context.Context // bounded by the test's timeout
	liqoLab, ourLab *lab.Cluster
	liqo, ours      *kube.Cluster
	liqoID, ourID   string
}

// startPair installs Liqo release on the "liqo" cluster and runs the side
// asked for there, and initialises "ours"; the cluster IDs are the
// prefixes with the release (releaseID); liqoArgs are more flags of
// Liqo's controller-manager.
func startPair(t *testing.T, release string, timeout time.Duration, side liqoSide, liqoPrefix, ourPrefix string, liqoArgs ...string) *pair {
	t.Helper()
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	p := &pair{ctx: ctx, liqoLab: cs[0], ourLab: cs[1], liqoID: releaseID(liqoPrefix, release), ourID: releaseID(ourPrefix, release)}
	p.liqo = liqotest.LiqoReleaseCluster(t, ctx, p.liqoLab, release, p.liqoID, side == liqoProvides, side == liqoConsumes, liqoArgs...)
	p.ours = liqotest.OurCluster(t, ctx, p.ourLab, p.ourID)
	return p
}

//go:build cluster

package doctorcert_test

import (
	"os"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// signingDuration is the validity the lab's kube-controller-manager gives
// the certificates it signs: with its 5-minute backdating a certificate
// issued at t is valid from t-5m to t+3m, due for renewal 20 s after
// issue, overdue (doctor's verdict) 52 s after, expired 3 minutes after.
const signingDuration = 3 * time.Minute

// The lab of this package. Its tests run one after the other on
// "provider" and "consumer" (each with cluster IDs of its own: this
// project's controllers watch a whole API server), and "liqo" holds a real
// Liqo provider (whose CRDs would make the other two look like Liqo); the
// expiry test waits on a pair of its own meanwhile.
var testLab = labtest.LazyWithOptions(lab.Options{SigningDuration: signingDuration},
	"provider", "consumer", "liqo", "expired-provider", "expired-consumer")

// The clusters of testLab, by index.
const (
	providerCluster = iota
	consumerCluster
	liqoCluster
	expiredProviderCluster
	expiredConsumerCluster
)

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

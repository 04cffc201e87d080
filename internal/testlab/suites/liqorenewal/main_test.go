//go:build cluster

package liqorenewal_test

import (
	"os"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// signingDuration is the validity the lab's kube-controller-manager gives
// the certificates it signs. For such short certificates it backdates
// NotBefore by 5 minutes but not NotAfter: a certificate issued at t is
// valid from t-5m to t+3m and reaches its 2/3 point, when the provider
// renews it, 20 s after it was issued.
const signingDuration = 3 * time.Minute

// The lab of this package: "liqo" gets Liqo's CRDs and runs liqo-peer (and
// crd-replicator); "ours" is initialised and served by this project.
var testLab = labtest.LazyWithOptions(lab.Options{SigningDuration: signingDuration}, "liqo", "ours")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

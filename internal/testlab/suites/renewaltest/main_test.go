//go:build cluster

package renewaltest

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
// valid from t-5m to t+3m, and reaches its 2/3 point (when the provider
// renews it) 20 s after it was issued.
const signingDuration = 3 * time.Minute

var testLab = labtest.LazyWithOptions(lab.Options{SigningDuration: signingDuration}, "provider", "consumer")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

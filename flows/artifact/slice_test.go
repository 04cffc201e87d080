package artifact_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
)

// A huge "e<n>" exponent is refused at once: apimachinery would compute
// 10^n in full (the fuzzer's hang: 922337e036854775807 pods). Suffixes
// that merely contain an E (exa, exbi) still parse.
func TestParseQuantityRefusesHugeExponents(t *testing.T) {
	start := time.Now()
	for _, s := range []string{"922337e036854775807", "1e999999999", "1E65", "1e-65", "1e+2147483648"} {
		_, err := artifact.ParseQuantity(s)
		assert.ErrorContains(t, err, "exponent", s)
	}
	assert.Less(t, time.Since(start), 5*time.Second)
	for s, want := range map[string]string{"1e3": "1e3", "1E": "1E", "2Ei": "2Ei", "5e-3": "5e-3", "1E18": "1E18", "500m": "500m"} {
		q, err := artifact.ParseQuantity(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, q.String(), s)
	}
	err := artifact.CheckSliceRequest(artifact.SliceRequest{Name: "s", Pods: "922337e036854775807"})
	assert.EqualError(t, err, `--pods "922337e036854775807" is not a Kubernetes quantity (e.g. 2, 500m, 4Gi)`)
}

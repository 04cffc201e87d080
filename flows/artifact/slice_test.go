package artifact_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
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
	assert.EqualError(t, err, `pods: "922337e036854775807" is not a quantity (e.g. 110)`)
}

// CheckSliceRequest names the field at fault, with apimachinery's own
// rules for names and quantities.
func TestCheckSliceRequestNamesTheField(t *testing.T) {
	valid := artifact.SliceRequest{Name: "provider-1", ProviderID: "provider-1", Class: "default", CPU: "500m", Memory: "8Gi", Pods: "110"}
	require.NoError(t, artifact.CheckSliceRequest(valid))
	require.NoError(t, artifact.CheckSliceRequest(artifact.SliceRequest{Name: "pool.eu-1"}), "a request leaving the amounts to the provider")
	for _, c := range []struct {
		name       string
		edit       func(*artifact.SliceRequest)
		field, msg string
	}{
		{"empty name", func(r *artifact.SliceRequest) { r.Name = "" }, handshake.FieldSliceName, `"" is not a valid ResourceSlice name`},
		{"upper case", func(r *artifact.SliceRequest) { r.Name = "Pool" }, handshake.FieldSliceName, `"Pool" is not a valid ResourceSlice name: at most 63 lowercase`},
		{"longer than a label", func(r *artifact.SliceRequest) { r.Name = strings.Repeat("a", 64) }, handshake.FieldSliceName, "is not a valid ResourceSlice name"},
		{"provider", func(r *artifact.SliceRequest) { r.ProviderID = "Bad_ID" }, handshake.FieldProvider, "provider cluster ID: invalid cluster ID"},
		{"class", func(r *artifact.SliceRequest) { r.Class = "my class" }, handshake.FieldClass, `"my class" is not a valid class`},
		{"cpu", func(r *artifact.SliceRequest) { r.CPU = "lots" }, handshake.FieldCPU, `cpu: "lots" is not a quantity (e.g. 4 or 500m)`},
		{"negative memory", func(r *artifact.SliceRequest) { r.Memory = "-1Gi" }, handshake.FieldMemory, `memory: "-1Gi" is negative`},
		{"half a pod", func(r *artifact.SliceRequest) { r.Pods = "1500m" }, handshake.FieldPods, `pods: "1500m" is not a whole number`},
		{"one and a half pods", func(r *artifact.SliceRequest) { r.Pods = "1.5" }, handshake.FieldPods, `pods: "1.5" is not a whole number`},
	} {
		req := valid
		c.edit(&req)
		err := artifact.CheckSliceRequest(req)
		var fe *handshake.FieldError
		if assert.True(t, errors.As(err, &fe), c.name) {
			assert.Equal(t, c.field, fe.Field, c.name)
			assert.Contains(t, fe.Reason, c.msg, c.name)
		}
	}
}

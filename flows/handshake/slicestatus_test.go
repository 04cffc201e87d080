package handshake

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// A table shows a denial's reason when it says more than Liqo's plain
// "denied" (whose reasons are kube's).
func TestSliceStatusResourcesShown(t *testing.T) {
	assert.Equal(t, kube.SliceResourcesDeniedReason, liqoResourcesDeniedReason)
	assert.Equal(t, kube.SliceAuthenticationDeniedReason, liqoAuthenticationDeniedReason)
	for _, c := range []struct {
		st   SliceStatus
		want string
	}{
		{SliceStatus{Resources: "Accepted"}, "Accepted"},
		{SliceStatus{Resources: "Denied", Reason: kube.SliceResourcesDeniedReason}, "Denied"},
		{SliceStatus{Resources: "Denied", Reason: kube.SliceDefaultClassDisabledReason}, "Denied (DefaultResourceSliceClassDisabled)"},
		{SliceStatus{Resources: "Denied", Reason: "TenantCordoned"}, "Denied (TenantCordoned)"},
		{SliceStatus{}, ""},
	} {
		assert.Equal(t, c.want, c.st.ResourcesShown(), "%+v", c.st)
	}
}

package wizardbackend

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The form gets artifact.CheckSliceRequest's verdict as its handshake.FieldError
// (the verdicts themselves: flows/artifact's tests).
func TestCheckSliceRequestNamesTheFormField(t *testing.T) {
	b := &Backend{}
	assert.NoError(t, b.CheckSliceRequest(tui.SliceRequest{Name: "pool.eu-1", ProviderID: "provider-1"}))
	var fe *handshake.FieldError
	err := b.CheckSliceRequest(tui.SliceRequest{Name: "pool", ProviderID: "provider-1", Pods: "1.5"})
	if assert.True(t, errors.As(err, &fe)) {
		assert.Equal(t, handshake.FieldPods, fe.Field)
		assert.Equal(t, `pods: "1.5" is not a whole number`, fe.Reason)
	}
}

package flows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// The Warnings that Liqo's controllers retry are final for no wait, and §11
// lists which ones are.
func TestFinalWarningsAreSection11s(t *testing.T) {
	for _, r := range []string{"SignatureVerificationFailed", "InvalidCSR"} {
		assert.True(t, flows.IsFinalWarning(r), r)
	}
	for _, r := range []string{"UpdateFailed", "NonceNotFound", "AuthParamsFailed", "SomethingNew"} {
		assert.False(t, flows.IsFinalWarning(r), r)
	}
}

package cmd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// verify says when the certificate expires, relative to now, and when it
// was last renewed, or that it never was.
func TestVerifyCertificateLines(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	assert.Equal(t, "2026-01-01T14:00:00Z (in 2h0m0s)", certificateExpiryText(now.Add(2*time.Hour), now))
	assert.Equal(t, "2026-01-01T11:59:30Z (expired 30s ago)", certificateExpiryText(now.Add(-30*time.Second), now))
	assert.Contains(t, certificateExpiryText(time.Time{}, now), "unknown")
	assert.Equal(t, "never", lastRenewalText(time.Time{}))
	assert.Equal(t, "2026-01-01T12:00:00Z", lastRenewalText(now))
}

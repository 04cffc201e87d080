package cmd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// verify says when the certificate expires, relative to now, and when it
// was last renewed, or that it never was.
func TestVerifyCertificateLines(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	assert.Equal(t, "2026-01-01T14:00:00Z (in 120m)", certificateExpiryText(now.Add(2*time.Hour), now))
	assert.Equal(t, "2026-01-01T11:59:30Z (expired 30s ago)", certificateExpiryText(now.Add(-30*time.Second), now))
	assert.Contains(t, certificateExpiryText(time.Time{}, now), "unknown")
	assert.Equal(t, "never", lastRenewalText(time.Time{}))
	assert.Equal(t, "2026-01-01T12:00:00Z", lastRenewalText(now))
	assert.Equal(t, "2026-01-01T11:55:00Z (5m ago)", lastRenewalAgo(now.Add(-5*time.Minute), now))
	assert.Equal(t, "never", lastRenewalAgo(time.Time{}, now))
}

// A fresh one-year certificate is "in 365d", humanized and rounded as the
// wizard's summary says it (it printed "in 8759h50m45s").
func TestVerifyExpiryIsHuman(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	notAfter := now.Add(8759*time.Hour + 50*time.Minute + 45*time.Second)
	assert.Equal(t, "2027-01-01T11:50:45Z (in 365d)", certificateExpiryText(notAfter, now))
	assert.Contains(t, certificateExpiryText(notAfter, now), "("+handshake.ExpiresIn(notAfter, now)+")")
}

package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func TestRenewalSchedule(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	notAfter := t0.Add(3 * time.Hour)
	at := kube.RenewalTime(t0, notAfter)
	assert.Equal(t, t0.Add(2*time.Hour), at, "2/3 of the validity")

	due, after := renewalSchedule(at, t0.Add(time.Hour))
	assert.False(t, due)
	assert.Equal(t, 66*time.Minute, after, "1.1 × the hour left to the 2/3 point")
	due, after = renewalSchedule(at, at)
	assert.True(t, due)
	assert.Zero(t, after)
	due, _ = renewalSchedule(at, notAfter.Add(time.Hour))
	assert.True(t, due, "expired")

	key := newConsumer(t, "schedule").key
	due, after, err := renewalDue(labtest.SelfSigned(t, key, "schedule", time.Now().Add(-time.Hour), time.Now().Add(2*time.Hour)), time.Now())
	require.NoError(t, err)
	assert.False(t, due)
	assert.InDelta(t, float64(66*time.Minute), float64(after), float64(time.Minute))
	_, _, err = renewalDue([]byte("not a certificate"), time.Now())
	assert.Error(t, err)
}

// The consumer applies a renewed certificate only when it is readable, for
// its own key, and lasts longer than the one it has: a Renew status a step
// behind never rolls the Identity back.
func TestRenewedCertificate(t *testing.T) {
	now := time.Now()
	key, other := newConsumer(t, "renewed").key, newConsumer(t, "other").key
	current := labtest.SelfSigned(t, key, "renewed", now.Add(-time.Hour), now.Add(time.Hour))
	newer := labtest.SelfSigned(t, key, "renewed", now, now.Add(2*time.Hour))
	older := labtest.SelfSigned(t, key, "renewed", now.Add(-2*time.Hour), now.Add(30*time.Minute))

	got, err := renewedCertificate(current, newer)
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, now.Add(2*time.Hour).Truncate(time.Second).UTC(), got.NotAfter.UTC())

	got, err = renewedCertificate(current, older)
	require.NoError(t, err)
	assert.Nil(t, got, "an older certificate is not applied")
	got, err = renewedCertificate(current, current)
	require.NoError(t, err)
	assert.Nil(t, got, "the same one neither")

	_, err = renewedCertificate(current, labtest.SelfSigned(t, other, "renewed", now, now.Add(2*time.Hour)))
	assert.ErrorContains(t, err, "another key")
	_, err = renewedCertificate(current, []byte("garbage"))
	assert.ErrorContains(t, err, "unreadable")

	got, err = renewedCertificate([]byte("crt"), newer)
	require.NoError(t, err)
	assert.NotNil(t, got, "an unreadable current certificate is replaced")
}

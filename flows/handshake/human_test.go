package handshake

import (
	"testing"
	"time"
)

// Durations read as kubectl's ages, rounded to the unit shown.
func TestHumanDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{90 * time.Second, "90s"},
		{5*time.Minute + 400*time.Millisecond, "5m"},
		{3*time.Hour + 20*time.Minute + 40*time.Second, "3h21m"},
		{2*time.Minute - 300*time.Millisecond, "2m"},
		{8759*time.Hour + 50*time.Minute + 45*time.Second, "365d"}, // a fresh one-year certificate
		{400 * 24 * time.Hour, "400d"},
	} {
		if got := HumanDuration(c.d); got != c.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestExpiresInAndAgo(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct{ got, want string }{
		{ExpiresIn(now.Add(365*24*time.Hour-time.Minute), now), "in 365d"},
		{ExpiresIn(now.Add(-3*time.Hour), now), "expired 3h ago"},
		{ExpiresIn(now, now), "expired 0s ago"},
		{Ago(now.Add(-500*time.Millisecond), now), "just now"},
		{Ago(now.Add(time.Minute), now), "just now"}, // a clock ahead
		{Ago(now.Add(-90*time.Second), now), "90s ago"},
		{Ago(now.Add(-(3*24+2)*time.Hour), now), "3d2h ago"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

// liqoctl names the slice after the provider; a UUID gives way to the
// provider's context, else a short readable name.
func TestDefaultSliceName(t *testing.T) {
	const uuid = "418885f6-4B86-426a-b20d-7937cb34de04"
	for _, c := range []struct{ id, context, want string }{
		{"milan", "kind-milan", "milan"},
		{uuid, "kind-Provider_1", "kind-provider-1"},
		{uuid, "", "provider-418885f6"},
		{uuid, "default", "provider-418885f6"},
		{uuid, "@@", "provider-418885f6"},
	} {
		if got := DefaultSliceName(c.id, c.context); got != c.want {
			t.Errorf("DefaultSliceName(%q, %q) = %q, want %q", c.id, c.context, got, c.want)
		}
	}
}

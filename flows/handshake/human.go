package handshake

import (
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// HumanDuration is d as kubectl prints ages ("45s", "3h20m", "364d"),
// rounded to the last unit it shows rather than cut: a fresh one-year
// certificate is 365d away, not 364d.
func HumanDuration(d time.Duration) string {
	return duration.HumanDuration(d.Round(shownUnit(d)))
}

// shownUnit is the smallest unit HumanDuration prints for a duration of
// about d's length.
func shownUnit(d time.Duration) time.Duration {
	switch {
	case d < 10*time.Minute:
		return time.Second
	case d < 8*time.Hour:
		return time.Minute
	case d < 8*24*time.Hour:
		return time.Hour
	}
	return 24 * time.Hour
}

// ExpiresIn says how far a certificate's notAfter is from now: "in 365d",
// or "expired 3h ago" once past. verify and the wizard's summary print
// this same text, so that they always agree.
func ExpiresIn(notAfter, now time.Time) string {
	if !notAfter.After(now) {
		return "expired " + HumanDuration(now.Sub(notAfter)) + " ago"
	}
	return "in " + HumanDuration(notAfter.Sub(now))
}

// Ago says how long before now t was: "just now" within a second, else
// "12s ago", "5m ago", "3d ago".
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	if d < time.Second {
		return "just now"
	}
	return HumanDuration(d) + " ago"
}

// TimeText is t in RFC 3339 (UTC), or "unknown" when zero.
func TimeText(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

package controller

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	due, after, err := renewalDue(selfSigned(t, key, "schedule", time.Now().Add(-time.Hour), time.Now().Add(2*time.Hour)), time.Now())
	require.NoError(t, err)
	assert.False(t, due)
	assert.InDelta(t, float64(66*time.Minute), float64(after), float64(time.Minute))
	_, _, err = renewalDue([]byte("not a certificate"), time.Now())
	assert.Error(t, err)
}

// selfSigned makes a client certificate for cn valid from notBefore to notAfter.
func selfSigned(t testing.TB, key crypto.Signer, cn string, notBefore, notAfter time.Time) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn, Organization: []string{kube.LiqoOrganization}},
		NotBefore:    notBefore, NotAfter: notAfter,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// The consumer applies a renewed certificate only when it is readable, for
// its own key, and lasts longer than the one it has: a Renew status a step
// behind never rolls the Identity back.
func TestRenewedCertificate(t *testing.T) {
	now := time.Now()
	key, other := newConsumer(t, "renewed").key, newConsumer(t, "other").key
	current := selfSigned(t, key, "renewed", now.Add(-time.Hour), now.Add(time.Hour))
	newer := selfSigned(t, key, "renewed", now, now.Add(2*time.Hour))
	older := selfSigned(t, key, "renewed", now.Add(-2*time.Hour), now.Add(30*time.Minute))

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

	_, err = renewedCertificate(current, selfSigned(t, other, "renewed", now, now.Add(2*time.Hour)))
	assert.ErrorContains(t, err, "another key")
	_, err = renewedCertificate(current, []byte("garbage"))
	assert.ErrorContains(t, err, "unreadable")

	got, err = renewedCertificate([]byte("crt"), newer)
	require.NoError(t, err)
	assert.NotNil(t, got, "an unreadable current certificate is replaced")
}

package kube_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func TestRenewalTimeIsTwoThirds(t *testing.T) {
	nb := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, nb.Add(240*24*time.Hour), kube.RenewalTime(nb, nb.Add(360*24*time.Hour)))
	_, err := kube.CertificateRenewalTime([]byte("-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n"))
	assert.Error(t, err)
}

// The cache refusal in the words of each implementation (the messages of
// Liqo v1.2.0 and v1.1.2 read in their sources, the lab's liqo-peer
// events tested in liqointerop).
func TestStoredCSRMismatchMessage(t *testing.T) {
	for msg, want := range map[string]bool{
		kube.ErrStoredCSRMismatch.Error():                                                                  true,
		"the stored and the provided CSR for cluster cons-1 does not match":                                true,
		"Unable to forge the AuthParams: the stored and the provided CSR do not match (delete secret x/y)": true,
		"the stored and the provided CSR for cluster cons-1 were read":                                     false,
		"the CSR does not match the public key":                                                            false,
	} {
		assert.Equal(t, want, kube.StoredCSRMismatchMessage(msg), msg)
	}
}

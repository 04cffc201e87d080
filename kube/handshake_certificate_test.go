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

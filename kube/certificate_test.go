package kube_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func TestRenewalTimeIsTwoThirds(t *testing.T) {
	nb := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, nb.Add(240*24*time.Hour), kube.RenewalTime(nb, nb.Add(360*24*time.Hour)))
	_, err := kube.CertificateRenewalTime([]byte("-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n"))
	assert.Error(t, err)
}

func TestAdvertisedEndpoint(t *testing.T) {
	c := &kube.Cluster{Config: &rest.Config{Host: "10.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}}
	assert.Equal(t, "https://10.0.0.1:6443", c.AdvertisedAPIServer(""))
	assert.Equal(t, "https://api.example.com:6443", c.AdvertisedAPIServer("api.example.com:6443"))
	assert.Equal(t, "https://api.example.com", c.AdvertisedAPIServer("https://api.example.com/"))

	ca, err := c.AdvertisedCA(nil)
	require.NoError(t, err)
	assert.Equal(t, []byte("ca"), ca)
	ca, err = c.AdvertisedCA([]byte("override"))
	require.NoError(t, err)
	assert.Equal(t, []byte("override"), ca)

	file := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(file, []byte("from file"), 0o600))
	c.Config = &rest.Config{Host: "https://h", TLSClientConfig: rest.TLSClientConfig{CAFile: file}}
	ca, err = c.AdvertisedCA(nil)
	require.NoError(t, err)
	assert.Equal(t, []byte("from file"), ca)
	c.Config = &rest.Config{Host: "https://h"}
	ca, err = c.AdvertisedCA(nil)
	require.NoError(t, err)
	assert.Nil(t, ca)
}

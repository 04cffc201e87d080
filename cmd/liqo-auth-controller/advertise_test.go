package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// In a Pod (no --kubeconfig) the controller advertises a control-plane
// Node's address, like Liqo; with a kubeconfig, its server.
func TestAdvertiseNodeAddressInPodOnly(t *testing.T) {
	o, _, err := parseFlags(nil, nil)
	require.NoError(t, err)
	copts, err := controllerOptions(o)
	require.NoError(t, err)
	assert.True(t, copts.AdvertiseNodeAddress)
	assert.False(t, copts.TrustedCA)

	o, _, err = parseFlags([]string{"--kubeconfig", "/dev/null", "--trusted-ca"}, nil)
	require.NoError(t, err)
	copts, err = controllerOptions(o)
	require.NoError(t, err)
	assert.False(t, copts.AdvertiseNodeAddress)
	assert.True(t, copts.TrustedCA)
}

func TestCAOverrideForms(t *testing.T) {
	ca := validCA(t)
	o, _, err := parseFlags([]string{"--ca-override", base64.StdEncoding.EncodeToString(ca)}, nil)
	require.NoError(t, err)
	copts, err := controllerOptions(o)
	require.NoError(t, err)
	assert.Equal(t, ca, copts.CAOverride)

	file := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(file, ca, 0o600))
	o, _, err = parseFlags([]string{"--ca-override-file", file}, nil)
	require.NoError(t, err)
	copts, err = controllerOptions(o)
	require.NoError(t, err)
	assert.Equal(t, ca, copts.CAOverride)
}

func TestAdvertiseFlagMistakes(t *testing.T) {
	for args, want := range map[string][]string{
		"--ca-override: not base64 of a CA PEM":             {"--ca-override", "not-base64!"},
		"--ca-override and --ca-override-file both give":    {"--ca-override", "eA==", "--ca-override-file", "x"},
		"--api-server-address-override: API server address": {"--api-server-address-override", "http://x:6443"},
	} {
		_, _, err := parseFlags(want, nil)
		assert.ErrorContains(t, err, args)
	}
}

// validCA makes a self-signed CA certificate, as an admin's override is.
func validCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

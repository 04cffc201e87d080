package kube_test

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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// advertiseTestCA is a CA certificate as an admin's override would be.
func advertiseTestCA(t testing.TB) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "advertised-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func node(name string, addrs ...corev1.NodeAddress) corev1.Node {
	n := corev1.Node{}
	n.Name = name
	n.Status.Addresses = addrs
	return n
}

// Liqo's preference: the address type first (outer loop), then the node.
func TestNodeAPIServerPreference(t *testing.T) {
	a := node("a", corev1.NodeAddress{Type: corev1.NodeHostName, Address: "a.local"}, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.1"})
	b := node("b", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.7"})
	got, ok := kube.NodeAPIServer([]corev1.Node{a, b})
	require.True(t, ok)
	assert.Equal(t, "https://203.0.113.7:6443", got, "an ExternalIP on a later node beats an InternalIP on the first")

	got, _ = kube.NodeAPIServer([]corev1.Node{a})
	assert.Equal(t, "https://10.0.0.1:6443", got)
	got, _ = kube.NodeAPIServer([]corev1.Node{node("h", corev1.NodeAddress{Type: corev1.NodeHostName, Address: "h.local"})})
	assert.Equal(t, "https://h.local:6443", got)
	got, _ = kube.NodeAPIServer([]corev1.Node{node("v6", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "fd00::1"})})
	assert.Equal(t, "https://[fd00::1]:6443", got, "IPv6 bracketed")
	_, ok = kube.NodeAPIServer([]corev1.Node{node("none")})
	assert.False(t, ok)
}

func TestNormalizeAPIServer(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7:6443":         "https://203.0.113.7:6443",
		"https://api.example:443/": "https://api.example:443",
		" api.example ":            "https://api.example",
		"https://[fd00::1]:6443":   "https://[fd00::1]:6443",
	} {
		got, err := kube.NormalizeAPIServer(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, why := range map[string]string{
		"http://api.example:6443": "only https",
		"https://":                "not host[:port]",
		"api.example:99999":       "port",
		"https://u:p@api.example": "not host[:port]",
	} {
		_, err := kube.NormalizeAPIServer(in)
		assert.ErrorContains(t, err, why, in)
	}
}

// A Tenant's annotations win over the controller's options.
func TestWithTenantAnnotations(t *testing.T) {
	ca := advertiseTestCA(t)
	flags := kube.AdvertiseOptions{APIServerOverride: "https://flag:6443", CAOverride: []byte("flag-ca"), NodeAddress: true}

	o, err := flags.WithTenantAnnotations(nil)
	require.NoError(t, err)
	assert.Equal(t, flags.APIServerOverride, o.APIServerOverride)

	o, err = flags.WithTenantAnnotations(kube.AdvertiseAnnotations("tenant.example:443", ca, false))
	require.NoError(t, err)
	assert.Equal(t, "https://tenant.example:443", o.APIServerOverride)
	assert.Equal(t, ca, o.CAOverride)

	o, err = flags.WithTenantAnnotations(kube.AdvertiseAnnotations("", nil, true))
	require.NoError(t, err)
	assert.True(t, o.TrustedCA)
	assert.Nil(t, o.CAOverride, "the Tenant's trusted-ca beats the flags' CA")
	assert.Equal(t, flags.APIServerOverride, o.APIServerOverride)

	o, err = kube.AdvertiseOptions{TrustedCA: true}.WithTenantAnnotations(map[string]string{kube.AdvertiseTrustedCAAnnotation: "false"})
	require.NoError(t, err)
	assert.False(t, o.TrustedCA)

	for ann, want := range map[string]string{
		kube.AdvertiseAPIServerAnnotation: "annotation liqo-auth-tui.io/api-server-address",
		kube.AdvertiseCAAnnotation:        "annotation liqo-auth-tui.io/ca: not base64 of a CA PEM",
		kube.AdvertiseTrustedCAAnnotation: "is not true or false",
	} {
		_, err := flags.WithTenantAnnotations(map[string]string{ann: "http://bad"})
		assert.ErrorContains(t, err, want, ann)
	}
	_, err = flags.WithTenantAnnotations(map[string]string{kube.AdvertiseCAAnnotation: base64.StdEncoding.EncodeToString([]byte("not a certificate"))})
	assert.ErrorContains(t, err, "not base64 of a CA PEM")
}

// Without Nodes or Tenant annotations: the client's server (https://
// added, no trailing slash) and CA, inline or from a file, or none.
func TestAdvertiseFromTheClient(t *testing.T) {
	ctx := t.Context()
	c := &kube.Cluster{Config: &rest.Config{Host: "10.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}}
	a, err := c.Advertise(ctx, kube.AdvertiseOptions{})
	require.NoError(t, err)
	assert.Equal(t, kube.Advertised{APIServer: "https://10.0.0.1:6443", APIServerSource: kube.AdvertiseFromKubeconfig,
		CA: []byte("ca"), CASource: kube.AdvertiseFromKubeconfig}, a)
	a, err = c.Advertise(ctx, kube.AdvertiseOptions{APIServerOverride: "https://api.example.com/", CAOverride: []byte("override")})
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com", a.APIServer)
	assert.Equal(t, []byte("override"), a.CA)

	file := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(file, []byte("from file"), 0o600))
	c.Config = &rest.Config{Host: "https://h/", TLSClientConfig: rest.TLSClientConfig{CAFile: file}}
	a, err = c.Advertise(ctx, kube.AdvertiseOptions{})
	require.NoError(t, err)
	assert.Equal(t, "https://h", a.APIServer)
	assert.Equal(t, []byte("from file"), a.CA)
	c.Config = &rest.Config{Host: "https://h"}
	a, err = c.Advertise(ctx, kube.AdvertiseOptions{})
	require.NoError(t, err)
	assert.Nil(t, a.CA)
}

//go:build cluster

package kube_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func selfSignedPEM(t *testing.T) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "stranger"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kd, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
}

// Each way a cluster can be unusable is classified, with the server named.
func TestWhoAmIClassifiesFailures(t *testing.T) {
	admin := clusters(t)[0].Config
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := closed.Addr().String()
	closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	require.NoError(t, err)
	defer silent.Close()

	strangerCert, strangerKey := selfSignedPEM(t)
	nobody, err := clusters(t)[0].AddUser("nobody")
	require.NoError(t, err)

	cases := []struct {
		name  string
		cfg   func() *rest.Config
		class kube.FailureClass
		call  func(ctx context.Context, c *kube.Cluster) error
	}{
		{"refused", func() *rest.Config { c := rest.CopyConfig(admin); c.Host = "https://" + closedAddr; return c }, kube.FailureRefused, nil},
		{"tls", func() *rest.Config { c := rest.CopyConfig(admin); c.CAData = strangerCert; return c }, kube.FailureTLS, nil},
		{"unauthorized", func() *rest.Config {
			c := rest.AnonymousClientConfig(admin)
			c.CertData, c.KeyData = strangerCert, strangerKey
			return c
		}, kube.FailureUnauthorized, nil},
		{"timeout", func() *rest.Config {
			c := rest.CopyConfig(admin)
			c.Host = "https://" + silent.Addr().String()
			return c
		}, kube.FailureTimeout, nil},
		{"forbidden", func() *rest.Config { return nobody }, kube.FailureForbidden, func(ctx context.Context, c *kube.Cluster) error {
			_, err := c.ClusterIDConfigMap(ctx)
			return kube.Reach(c.Server, err)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(labtest.Context(t), 2*time.Second)
			defer cancel()
			c, err := kube.NewCluster(tc.cfg(), "")
			require.NoError(t, err)
			if tc.call == nil {
				_, _, err = c.WhoAmI(ctx)
			} else {
				err = tc.call(ctx, c)
			}
			var reach *kube.ReachError
			require.True(t, errors.As(err, &reach), "got %v", err)
			assert.Equal(t, tc.class, reach.Class, err.Error())
			assert.Contains(t, err.Error(), c.Server)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

package kubeconfig_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
)

// Fuzz targets of the kubeconfigs the tool reads from outside: a peering
// user's or a 0.x identity's kubeconfig handed over by the other admin, and
// any --kubeconfig file. No input panics, errors fit on one line and never
// repeat the kubeconfig's private key.

// kubeconfigSeed is a peering-user-like kubeconfig: the test-vector key
// and a certificate made with it.
func kubeconfigSeed(f *testing.F) (kubeconfig, keyPEM []byte) {
	f.Helper()
	keyPEM, err := os.ReadFile(filepath.Join("..", "..", "testdata", "crypto", "vector-private-key.pem"))
	require.NoError(f, err)
	key, err := authcrypto.ParsePrivateKeyPEM(keyPEM)
	require.NoError(f, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "liqo-peer-user-consumer", Organization: []string{"liqo.io"}},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(0, 0).Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public().(ed25519.PublicKey), key)
	require.NoError(f, err)
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["consumer"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443", CertificateAuthorityData: cert}
	cfg.AuthInfos["consumer-user"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: keyPEM}
	cfg.Contexts["default-context"] = &clientcmdapi.Context{Cluster: "consumer", AuthInfo: "consumer-user", Namespace: "liqo-tenant-x"}
	cfg.CurrentContext = "default-context"
	kubeconfig, err = clientcmd.Write(*cfg)
	require.NoError(f, err)
	return kubeconfig, keyPEM
}

func addKubeconfigSeeds(f *testing.F) (keyPEM []byte) {
	kc, keyPEM := kubeconfigSeed(f)
	f.Add(kc)
	f.Add(kc[:len(kc)/2])
	f.Add(bytes.Replace(kc, []byte("current-context: default-context"), []byte("current-context: other"), 1))
	f.Add(bytes.Replace(kc, []byte("client-certificate-data"), []byte("client-certificate"), 1))
	f.Add(bytes.Replace(kc, []byte("server: https://127.0.0.1:6443"), []byte("server: ://bad"), 1))
	f.Add(keyPEM)
	f.Add([]byte("apiVersion: v1\nkind: Config\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Config","users":[{"name":"u","user":{"exec":{"command":"x"}}}]}`))
	f.Add([]byte(""))
	return keyPEM
}

// checkError: one line, and no part of the key as PEM lines or base64.
func checkError(t *testing.T, data, keyPEM []byte, err error) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("error spans lines: %q", msg)
	}
	secrets := []string{base64.StdEncoding.EncodeToString(keyPEM)[:32]}
	for _, line := range strings.Split(string(keyPEM), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, line)
		}
	}
	for _, s := range secrets {
		if bytes.Contains(data, []byte(s)) && strings.Contains(msg, s) {
			t.Fatalf("error echoes private key material: %q", msg)
		}
	}
}

func FuzzClientCertificate(f *testing.F) {
	keyPEM := addKubeconfigSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		cert, err := kubeconfig.ClientCertificate(data)
		if err != nil {
			if cert != nil {
				t.Fatal("certificate returned with an error")
			}
			checkError(t, data, keyPEM, err)
			return
		}
		again, err := x509.ParseCertificate(cert.Raw)
		if err != nil || !again.Equal(cert) {
			t.Fatalf("accepted certificate does not parse again: %v", err)
		}
	})
}

// FuzzLoad: --kubeconfig files, read as kube.Connect reads them (without
// contacting any server), then turned into an HTTP client and a server URL
// as its clientsets do: their errors reach the admin too.
func FuzzLoad(f *testing.F) {
	keyPEM := addKubeconfigSeeds(f)
	path := filepath.Join(f.TempDir(), "kubeconfig")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := kubeconfig.Load(path, "")
		if err != nil {
			if cfg != nil {
				t.Fatal("configuration returned with an error")
			}
			checkError(t, data, keyPEM, err)
			return
		}
		if _, err := rest.HTTPClientFor(cfg); err != nil {
			checkError(t, data, keyPEM, err)
		}
		if _, _, err := rest.DefaultServerUrlFor(cfg); err != nil {
			checkError(t, data, keyPEM, err)
		}
	})
}

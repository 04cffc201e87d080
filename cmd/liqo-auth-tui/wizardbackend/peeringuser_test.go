package wizardbackend

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The peering user's kubeconfig goes out whole (Data) but is shown masked:
// the key and the client certificate as kubectl config view shows them,
// the server and CA as they are; it never goes on the clipboard.
func TestPeeringUserArtifactMasksTheCredentials(t *testing.T) {
	const key = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleQ==\n-----END PRIVATE KEY-----\n"
	const cert = "-----BEGIN CERTIFICATE-----\nY2xpZW50LWNlcnQ=\n-----END CERTIFICATE-----\n"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c1"] = &clientcmdapi.Cluster{Server: "https://p1.example:6443", CertificateAuthorityData: []byte("the CA")}
	cfg.AuthInfos["c1-user"] = &clientcmdapi.AuthInfo{ClientCertificateData: []byte(cert), ClientKeyData: []byte(key)}
	cfg.Contexts["default-context"] = &clientcmdapi.Context{Cluster: "c1", AuthInfo: "c1-user", Namespace: "liqo-tenant-c1"}
	cfg.CurrentContext = "default-context"
	data, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	expires := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

	a, err := peeringUserArtifact(&flows.PeeringUser{ConsumerID: "c1", User: "liqo-peer-user-c1-0123", Kubeconfig: data, Expires: expires}, "p1")
	require.NoError(t, err)
	assert.Equal(t, handshake.KindPeeringUser, a.Kind)
	assert.Equal(t, data, a.Data)
	assert.True(t, a.Sensitive)
	assert.Equal(t, "p1", a.FromID)
	assert.Equal(t, "c1", a.ForID)
	assert.Equal(t, "liqo-peer-user-c1-0123", a.User)
	assert.Equal(t, expires, a.NotAfter)
	assert.Equal(t, "https://p1.example:6443", a.APIServer)
	shown := a.Shown()
	assert.Contains(t, shown, "client-key-data: REDACTED\n")
	assert.Contains(t, shown, "client-certificate-data: DATA+OMITTED\n")
	assert.Contains(t, shown, "server: https://p1.example:6443\n")
	assert.Contains(t, shown, "namespace: liqo-tenant-c1\n")
	for _, secret := range []string{base64.StdEncoding.EncodeToString([]byte(key)), base64.StdEncoding.EncodeToString([]byte(cert)), "PRIVATE KEY"} {
		assert.False(t, strings.Contains(shown, secret), "%q shown", secret)
	}
	// The kubeconfig itself is untouched.
	assert.Contains(t, string(a.Data), "client-key-data: LS0t")

	_, err = peeringUserArtifact(&flows.PeeringUser{Kubeconfig: []byte("not: [a kubeconfig")}, "p1")
	assert.Error(t, err)
}

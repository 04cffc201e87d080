//go:build cluster

package liqo0xlab_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The real Liqo v0.10.1 auth server, run by the harness on a lab cluster,
// answers as §2.3 and §10 say: /ids names the cluster; a wrong token gets
// 401 `invalid token "<token>"`; the right token with a body of both shapes
// and an Ed25519 CSR (CN=<consumer ID>, O=liqo.io) gets 202 and a
// certificate that the provider's API server maps to user <consumer ID> in
// group liqo.io.
func TestRealAuthServerIssuesIdentity(t *testing.T) {
	provider := testLab.Clusters(t)[0]
	ctx := liqo0xContext(t)
	addr := realliqo0x.FreeAddress(t)
	start := time.Now()
	require.NoError(t, realliqo0x.Install(ctx, provider.Config, realliqo0x.InstallOptions{
		ClusterID: providerID, ClusterName: providerName, AuthAddress: addr}))
	installed := time.Since(start)
	srv := realliqo0x.StartAuthService(t, provider.KubeconfigPath, realliqo0x.AuthOptions{
		ClusterID: providerID, ClusterName: providerName, Address: addr, APIServerAddress: provider.Config.Host})
	t.Logf("timing: install %s, auth server serving after %s", installed.Round(time.Millisecond), (time.Since(start) - installed).Round(time.Millisecond))

	// As Liqo's clients: its certificate is self-signed without SAN.
	client := &http.Client{Timeout: 40 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a 0.x auth server's certificate cannot be verified
	t.Cleanup(client.CloseIdleConnections)

	code, body := do(t, ctx, client, http.MethodGet, srv.URL+"/ids", nil)
	require.Equal(t, http.StatusOK, code, body)
	assert.JSONEq(t, `{"clusterId":"`+providerID+`","clusterName":"`+providerName+`"}`, body)

	token, err := realliqo0x.AuthToken(ctx, provider.Config)
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{128}$`), token, "the auth-token the server created")

	id := uuid.NewString()
	key, csrPEM := ed25519CSR(t, id)
	wrong := strings.Repeat("0", 128)
	code, body = do(t, ctx, client, http.MethodPost, srv.URL+"/identity/certificate", identityRequest(t, id, "consumer-a", wrong, csrPEM))
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, `invalid token "`+wrong+`"`+"\n", body)

	sent := time.Now()
	code, body = do(t, ctx, client, http.MethodPost, srv.URL+"/identity/certificate", identityRequest(t, id, "consumer-a", token, csrPEM))
	t.Logf("timing: identity issued in %s", time.Since(sent).Round(time.Millisecond))
	require.Equal(t, http.StatusAccepted, code, body)
	var resp struct {
		Namespace    string `json:"namespace"`
		Certificate  string `json:"certificate"`
		APIServerURL string `json:"apiServerUrl"`
		APIServerCA  string `json:"apiServerCA"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	assert.Regexp(t, `^liqo-tenant-consumer-a-[0-9a-f]{6}$`, resp.Namespace)
	assert.Equal(t, provider.Config.Host, resp.APIServerURL)
	certPEM, err := base64.StdEncoding.DecodeString(resp.Certificate)
	require.NoError(t, err)

	// The identity authenticates to the provider's API server as <id> in liqo.io.
	cfg := &rest.Config{Host: resp.APIServerURL, TLSClientConfig: rest.TLSClientConfig{
		CAData: provider.Config.CAData, CertData: certPEM, KeyData: key}}
	if resp.APIServerCA != "" {
		cfg.CAData, err = base64.StdEncoding.DecodeString(resp.APIServerCA)
		require.NoError(t, err)
	}
	remote, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	user, groups, err := remote.WhoAmI(ctx)
	require.NoError(t, err)
	assert.Equal(t, id, user)
	assert.Contains(t, groups, "liqo.io")
}

// identityRequest is the body of §10 that v0.3 and v0.4+ servers both read:
// the cluster ID at the top and in "cluster", the CSR as base64 of its PEM.
func identityRequest(t *testing.T, id, name, token string, csrPEM []byte) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"clusterID":                 id,
		"cluster":                   map[string]string{"clusterID": id, "clusterName": name},
		"destinationClusterToken":   token,
		"certificateSigningRequest": base64.StdEncoding.EncodeToString(csrPEM),
	})
	require.NoError(t, err)
	return body
}

// ed25519CSR returns a PKCS#8 key PEM and a CSR PEM with CN=id, O=liqo.io.
func ed25519CSR(t *testing.T, id string) (keyPEM, csrPEM []byte) {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: id, Organization: []string{"liqo.io"}}}, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func do(t *testing.T, ctx context.Context, client *http.Client, method, url string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "text/plain") // as Liqo's consumer sends it
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(out)
}

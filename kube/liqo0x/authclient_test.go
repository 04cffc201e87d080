package liqo0x

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

const (
	fakeProviderID = "5a0f3f0e-52b8-4d5c-9b4c-1a2b3c4d5e6f"
	fakeConsumerID = "9c8e7d6f-1b2a-4c3d-8e9f-0a1b2c3d4e5f"
)

var goodToken = strings.Repeat("a1", peerinfo.TokenLength/2)

// fakeAuthServer answers as a v0.10 auth server does (§2.3, §10), with
// authentication on or off, and records the identity requests it got.
type fakeAuthServer struct {
	*httptest.Server
	authDisabled bool
	// answer, when set, replaces the answer to an accepted identity request.
	answer func(w http.ResponseWriter)

	mu       sync.Mutex
	requests []map[string]any
	types    []string
}

func newFakeAuthServer(t *testing.T) *fakeAuthServer {
	f := &fakeAuthServer{}
	f.Server = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAuthServer) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == IDsPath:
		_, _ = io.WriteString(w, `{"clusterId":"`+fakeProviderID+`","clusterName":"provider"}`)
		return
	case r.Method != http.MethodPost || r.URL.Path != CertIdentityPath:
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.types = append(f.types, r.Header.Get("Content-Type"))
	f.mu.Unlock()
	token, _ := req["destinationClusterToken"].(string)
	if !f.authDisabled && token != goodToken {
		http.Error(w, fmt.Sprintf("invalid token %q", token), http.StatusUnauthorized)
		return
	}
	cluster, _ := req["cluster"].(map[string]any)
	if id, _ := cluster["clusterID"].(string); strings.ToLower(id) != id {
		http.Error(w, `Namespace "liqo-tenant-`+id+`-e3b0c4" is invalid: metadata.name: Invalid value`, http.StatusForbidden)
		return
	}
	if f.answer != nil {
		f.answer(w)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"namespace":    "liqo-tenant-consumer-123456",
		"certificate":  base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.Certificate().Raw})),
		"apiServerUrl": "https://203.0.113.1:6443",
		"apiServerCA":  base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n")),
		"aws":          map[string]string{"accessKeyID": ""},
	})
}

func (f *fakeAuthServer) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.Certificate().Raw})
}

func (f *fakeAuthServer) identityRequests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func testCSR(t *testing.T, id string) []byte {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	csr, err := authcrypto.NewCSR(key, id)
	require.NoError(t, err)
	return csr
}

func skipClient(t *testing.T, url string) *AuthClient {
	t.Helper()
	a, err := NewAuthClient(AuthOptions{URL: url, InsecureSkipTLSVerify: true})
	require.NoError(t, err)
	return a
}

// One POST carries both request shapes (§8(1)2), the CSR as base64 of its
// PEM, Content-Type text/plain and no originClusterToken; the answer's
// base64 fields come back decoded.
func TestRequestIdentityBody(t *testing.T) {
	srv := newFakeAuthServer(t)
	csr := testCSR(t, fakeConsumerID)
	resp, err := skipClient(t, srv.URL).RequestIdentity(t.Context(), IdentityRequest{
		ConsumerID: fakeConsumerID, ConsumerName: "consumer", Token: goodToken, CSR: csr})
	require.NoError(t, err)

	require.Len(t, srv.requests, 1)
	got := srv.requests[0]
	assert.Equal(t, map[string]any{
		"clusterID":                 fakeConsumerID,
		"cluster":                   map[string]any{"clusterID": fakeConsumerID, "clusterName": "consumer"},
		"destinationClusterToken":   goodToken,
		"certificateSigningRequest": base64.StdEncoding.EncodeToString(csr),
	}, got, "both shapes, no originClusterToken")
	assert.Equal(t, "text/plain", srv.types[0])

	assert.Equal(t, "liqo-tenant-consumer-123456", resp.Namespace)
	assert.Equal(t, "https://203.0.113.1:6443", resp.APIServerURL)
	assert.Equal(t, srv.caPEM(), resp.Certificate)
	assert.Equal(t, []byte("-----BEGIN CERTIFICATE-----\n"), resp.APIServerCA)
}

// An empty consumer name becomes the ID: an empty one would make a v0.4+
// provider create a stray liqo-tenant--… namespace (§10).
func TestRequestIdentityDefaultsName(t *testing.T) {
	srv := newFakeAuthServer(t)
	_, err := skipClient(t, srv.URL).RequestIdentity(t.Context(), IdentityRequest{
		ConsumerID: fakeConsumerID, Token: goodToken, CSR: testCSR(t, fakeConsumerID)})
	require.NoError(t, err)
	assert.Equal(t, fakeConsumerID, srv.requests[0]["cluster"].(map[string]any)["clusterName"])
}

// Bad input is refused before anything is sent: the provider issues one
// identity per cluster ID.
func TestRequestIdentityRefusesBadInput(t *testing.T) {
	srv := newFakeAuthServer(t)
	a := skipClient(t, srv.URL)
	csr := testCSR(t, fakeConsumerID)
	for name, r := range map[string]IdentityRequest{
		"bad consumer ID":  {ConsumerID: "Not_An_ID", Token: goodToken, CSR: csr},
		"name too long":    {ConsumerID: fakeConsumerID, ConsumerName: strings.Repeat("a", MaxClusterNameLength+1), Token: goodToken, CSR: csr},
		"name not a label": {ConsumerID: fakeConsumerID, ConsumerName: "Consumer_1", Token: goodToken, CSR: csr},
		"no token":         {ConsumerID: fakeConsumerID, CSR: csr},
		"CSR of another":   {ConsumerID: fakeConsumerID, Token: goodToken, CSR: testCSR(t, fakeProviderID)},
		"not a CSR":        {ConsumerID: fakeConsumerID, Token: goodToken, CSR: []byte("nope")},
	} {
		_, err := a.RequestIdentity(t.Context(), r)
		assert.Error(t, err, name)
	}
	assert.Zero(t, srv.identityRequests(), "nothing was sent")
}

// Each refusal of §2.3 is classified and said in one line that never holds
// the token (the 401 body echoes it).
func TestRequestIdentityRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		token   string
		answer  func(w http.ResponseWriter)
		status  int
		refusal Refusal
		says    string
	}{
		{"wrong token", strings.Repeat("0", peerinfo.TokenLength), nil, 401, WrongToken, "refused the token"},
		{"already issued, same CSR", goodToken, func(w http.ResponseWriter) { http.Error(w, "", http.StatusForbidden) },
			403, AlreadyIssued, "deletes Secret liqo-remote-certificate in the namespace labelled discovery.liqo.io/cluster-id=" + fakeConsumerID},
		{"already issued, other CSR", goodToken, func(w http.ResponseWriter) {
			http.Error(w, "the stored and the provided CSR for cluster consumer does not match", http.StatusForbidden)
		}, 403, AlreadyIssued, "already issued"},
		{"incompatible", goodToken, func(w http.ResponseWriter) {
			http.Error(w, `Namespace "liqo-tenant-" is invalid: metadata.name: Invalid value`, http.StatusForbidden)
		}, 403, Incompatible, "another format"},
		{"server error", goodToken, func(w http.ResponseWriter) { http.Error(w, "timeout waiting for the certificate", 500) },
			500, OtherRefusal, "timeout waiting for the certificate"},
		{"no certificate in the answer", goodToken, func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{"namespace":"x","apiServerUrl":"https://a"}`)
		}, 202, OtherRefusal, "has no certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeAuthServer(t)
			srv.answer = tc.answer
			_, err := skipClient(t, srv.URL).RequestIdentity(t.Context(), IdentityRequest{
				ConsumerID: fakeConsumerID, ConsumerName: "consumer", Token: tc.token, CSR: testCSR(t, fakeConsumerID)})
			var authErr *AuthError
			require.True(t, errors.As(err, &authErr), "%v", err)
			assert.Equal(t, tc.status, authErr.Status)
			assert.Equal(t, tc.refusal, authErr.Refusal)
			assert.Equal(t, srv.URL, authErr.URL)
			assert.Contains(t, err.Error(), tc.says)
			assert.NotContains(t, err.Error(), tc.token, "never the token")
			assert.NotContains(t, authErr.Body, tc.token, "never the token")
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// redactToken hides the token in both servers' 401 bodies and anywhere else.
func TestRedactToken(t *testing.T) {
	assert.Equal(t, `invalid token "<redacted>"`, redactToken(`invalid token "`+goodToken+`"`, ""))
	assert.Equal(t, `invalid token "<redacted>"`, redactToken(`invalid token \"`+goodToken+`\"`, ""))
	assert.Equal(t, "got <redacted> here", redactToken("got "+goodToken+" here", goodToken))
}

// No answer: unreachable, naming the URL tried; a server slower than the
// timeout too.
func TestAuthUnreachable(t *testing.T) {
	srv := newFakeAuthServer(t)
	url := srv.URL
	srv.Close()
	_, err := skipClient(t, url).IDs(t.Context())
	var authErr *AuthError
	require.True(t, errors.As(err, &authErr), "%v", err)
	assert.Equal(t, 0, authErr.Status)
	assert.Equal(t, Unreachable, authErr.Refusal)
	assert.Contains(t, err.Error(), "unreachable")
	assert.Contains(t, err.Error(), url)

	release := make(chan struct{})
	// It answers nothing until the test ends: returning when the request's
	// context ends would send an empty 200 that a loaded machine may see.
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	a, err := NewAuthClient(AuthOptions{URL: slow.URL, InsecureSkipTLSVerify: true, Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	_, err = a.IDs(t.Context())
	require.True(t, errors.As(err, &authErr), "%v", err)
	assert.Equal(t, Unreachable, authErr.Refusal)
}

// The client verifies the certificate whenever it can: with the server's CA
// it verifies; without it, it skips only when allowed, and says so.
func TestAuthTLS(t *testing.T) {
	srv := newFakeAuthServer(t)

	verified, err := NewAuthClient(AuthOptions{URL: srv.URL, CAData: srv.caPEM(), InsecureSkipTLSVerify: true})
	require.NoError(t, err)
	assert.False(t, verified.TLSVerified(), "nothing asked yet")
	ids, err := verified.IDs(t.Context())
	require.NoError(t, err)
	assert.Equal(t, &ClusterIdentity{ClusterID: fakeProviderID, ClusterName: "provider"}, ids)
	assert.True(t, verified.TLSVerified())

	skipped := skipClient(t, srv.URL)
	_, err = skipped.IDs(t.Context())
	require.NoError(t, err)
	assert.False(t, skipped.TLSVerified())
	check, err := skipped.CheckToken(t.Context(), goodToken)
	require.NoError(t, err)
	assert.Equal(t, TokenAccepted, check, "stays skipped for later requests")

	strict, err := NewAuthClient(AuthOptions{URL: srv.URL})
	require.NoError(t, err)
	_, err = strict.IDs(t.Context())
	var authErr *AuthError
	require.True(t, errors.As(err, &authErr), "%v", err)
	assert.Equal(t, Unreachable, authErr.Refusal)
	assert.Contains(t, err.Error(), "--insecure-skip-tls-verify")
	assert.False(t, strict.TLSVerified())

	_, err = NewAuthClient(AuthOptions{URL: srv.URL, CAData: []byte("not PEM")})
	assert.ErrorContains(t, err, "PEM")
}

// Only https auth URLs.
func TestNewAuthClientRefusesHTTP(t *testing.T) {
	_, err := NewAuthClient(AuthOptions{URL: "http://auth.example.com:5000"})
	assert.ErrorContains(t, err, "not https")
}

// CheckToken tells right from wrong, and a server that accepts anything, with
// probes whose namespace the provider's API refuses.
func TestCheckToken(t *testing.T) {
	srv := newFakeAuthServer(t)
	a := skipClient(t, srv.URL)
	check, err := a.CheckToken(t.Context(), goodToken)
	require.NoError(t, err)
	assert.Equal(t, TokenAccepted, check)
	check, err = a.CheckToken(t.Context(), strings.Repeat("0", peerinfo.TokenLength))
	require.NoError(t, err)
	assert.Equal(t, TokenRefused, check)
	for _, r := range srv.requests {
		assert.Equal(t, probeClusterID, r["clusterID"])
		assert.Equal(t, map[string]any{"clusterID": probeClusterID, "clusterName": probeClusterID}, r["cluster"])
	}
	disabled, err := a.AuthenticationDisabled(t.Context())
	require.NoError(t, err)
	assert.False(t, disabled)

	srv.authDisabled = true
	check, err = a.CheckToken(t.Context(), strings.Repeat("0", peerinfo.TokenLength))
	require.NoError(t, err)
	assert.Equal(t, TokenAuthenticationDisabled, check)

	// An answer that is neither: an error, not a guess.
	srv.authDisabled = false
	odd := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", 500) }))
	t.Cleanup(odd.Close)
	_, err = skipClient(t, odd.URL).CheckToken(t.Context(), goodToken)
	assert.ErrorContains(t, err, "boom")
}

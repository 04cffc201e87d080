package kube

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/legacypeer"
)

// DefaultLegacyAuthTimeout is longer than the 30 s a 0.x auth server waits
// for the CSR to be signed: a client that gives up earlier may leave an
// identity issued that it never received, and the provider issues only one
// per cluster ID (§8(1)4).
const DefaultLegacyAuthTimeout = 40 * time.Second

// legacyProbeClusterID is not a DNS label, so the provider's API refuses the
// tenant namespace of a probe: the token is checked, nothing is created.
const legacyProbeClusterID = "Not_A_Cluster"

// legacyMaxResponse bounds what we read of an answer.
const legacyMaxResponse = 1 << 20

// LegacyAuthOptions say how to reach a Liqo 0.x auth server.
type LegacyAuthOptions struct {
	URL string // https://host[:port], as in peer info
	// InsecureSkipTLSVerify allows skipping verification when the server's certificate cannot be
	// verified (Liqo's default: the chart's certificate is self-signed without SAN). The client
	// verifies whenever it can (system roots + CAData); TLSVerified() tells what happened.
	InsecureSkipTLSVerify bool
	CAData                []byte
	Timeout               time.Duration // per request; 0 = 40s (> the server's 30 s CSR wait)
}

// LegacyAuthClient talks to a Liqo 0.x auth server (§2.3) with net/http.
type LegacyAuthClient struct {
	url      string
	verify   *http.Client
	insecure *http.Client // nil unless InsecureSkipTLSVerify
	// tlsMode is legacyTLSUnknown until a request got an answer.
	tlsMode atomic.Int32
}

const (
	legacyTLSUnknown int32 = iota
	legacyTLSVerified
	legacyTLSSkipped
)

// NewLegacyAuthClient checks the options; it refuses a non-https URL.
func NewLegacyAuthClient(o LegacyAuthOptions) (*LegacyAuthClient, error) {
	u, err := legacypeer.ValidateAuthURL(o.URL)
	if err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultLegacyAuthTimeout
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if len(o.CAData) > 0 && !roots.AppendCertsFromPEM(o.CAData) {
		return nil, errors.New("the auth server's CA holds no PEM certificate: give a PEM file")
	}
	a := &LegacyAuthClient{url: u, verify: legacyHTTPClient(timeout, &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12})}
	if o.InsecureSkipTLSVerify {
		// Liqo 0.x's own default: its chart's certificate cannot be verified.
		a.insecure = legacyHTTPClient(timeout, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // asked for, and used only after verification failed
	}
	return a, nil
}

func legacyHTTPClient(timeout time.Duration, tlsConfig *tls.Config) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone() // keeps HTTPS_PROXY
	t.TLSClientConfig = tlsConfig
	return &http.Client{Timeout: timeout, Transport: t}
}

// URL is the auth server's URL, as normalized.
func (a *LegacyAuthClient) URL() string { return a.url }

// TLSVerified tells whether the server's certificate was verified on the
// last answered request (false before any).
func (a *LegacyAuthClient) TLSVerified() bool { return a.tlsMode.Load() == legacyTLSVerified }

// LegacyClusterIdentity is what GET /ids answers: {"clusterId","clusterName"}.
type LegacyClusterIdentity struct{ ClusterID, ClusterName string }

// IDs asks the auth server which cluster it serves (unauthenticated).
func (a *LegacyAuthClient) IDs(ctx context.Context) (*LegacyClusterIdentity, error) {
	status, body, err := a.do(ctx, http.MethodGet, LegacyIDsPath, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, a.refusal(status, body, "", "")
	}
	var ids struct {
		ClusterID   string `json:"clusterId"`
		ClusterName string `json:"clusterName"`
	}
	if err := json.Unmarshal(body, &ids); err != nil || ids.ClusterID == "" {
		return nil, &LegacyAuthError{URL: a.url, Status: status, Body: oneLine(string(body)), Refusal: LegacyOther,
			Err: errors.New("GET /ids did not answer a cluster ID: is this a Liqo 0.x auth server?")}
	}
	return &LegacyClusterIdentity{ClusterID: ids.ClusterID, ClusterName: ids.ClusterName}, nil
}

// LegacyTokenCheck is what CheckToken learned.
type LegacyTokenCheck string

const (
	LegacyTokenAccepted LegacyTokenCheck = "accepted"
	LegacyTokenRefused  LegacyTokenCheck = "refused"
	// LegacyTokenAuthenticationDisabled: the server accepts any token.
	LegacyTokenAuthenticationDisabled LegacyTokenCheck = "authentication-disabled"
)

// CheckToken asks the server whether token is right WITHOUT writing anything
// on the provider: the probe's cluster ID is not a DNS label, so a server
// that accepts the token then fails to create the tenant namespace (403 "…
// is invalid"); a wrong token gets 401. When the token is accepted, a random
// wrong token tells whether authentication is disabled.
func (a *LegacyAuthClient) CheckToken(ctx context.Context, token string) (LegacyTokenCheck, error) {
	if token == "" {
		return "", errors.New("no token to check: give the provider's auth-token")
	}
	accepted, err := a.probe(ctx, token)
	if err != nil || !accepted {
		return LegacyTokenRefused, err
	}
	disabled, err := a.AuthenticationDisabled(ctx)
	if err != nil {
		return "", err
	}
	if disabled {
		return LegacyTokenAuthenticationDisabled, nil
	}
	return LegacyTokenAccepted, nil
}

// AuthenticationDisabled probes with a random wrong token: a server that
// accepts it runs with --enable-authentication=false (§2.7).
func (a *LegacyAuthClient) AuthenticationDisabled(ctx context.Context) (bool, error) {
	b := make([]byte, LegacyTokenLength/2)
	if _, err := rand.Read(b); err != nil {
		return false, err
	}
	return a.probe(ctx, hex.EncodeToString(b))
}

// probe tells whether the server accepted token, from the answer to a
// request that cannot create anything.
func (a *LegacyAuthClient) probe(ctx context.Context, token string) (bool, error) {
	body, err := legacyIdentityBody(legacyProbeClusterID, legacyProbeClusterID, token, nil)
	if err != nil {
		return false, err
	}
	status, answer, err := a.do(ctx, http.MethodPost, LegacyCertIdentityPath, body)
	if err != nil {
		return false, err
	}
	switch {
	case status == http.StatusUnauthorized:
		return false, nil
	case status == http.StatusForbidden && strings.Contains(string(answer), " is invalid"):
		return true, nil
	}
	return false, a.refusal(status, answer, token, "")
}

// LegacyIdentityRequest is what the consumer sends (§2.3).
type LegacyIdentityRequest struct {
	ConsumerID, ConsumerName, Token string
	CSR                             []byte // PEM
}

// LegacyIdentityResponse is the identity the provider issued.
type LegacyIdentityResponse struct {
	Namespace    string
	Certificate  []byte // PEM
	APIServerURL string
	APIServerCA  []byte // PEM, may be nil
}

// RequestIdentity sends ONE body with both shapes (top-level clusterID AND
// cluster{clusterID,clusterName}), the CSR as base64(std) of its PEM,
// Content-Type text/plain and no originClusterToken (which would make the
// provider store a remote-token Secret); it expects 202 (201 accepted too).
// Failures are *LegacyAuthError. The provider issues one identity per
// consumer ID: callers keep the key and CSR until the answer is stored.
func (a *LegacyAuthClient) RequestIdentity(ctx context.Context, r LegacyIdentityRequest) (*LegacyIdentityResponse, error) {
	if err := validateLegacyIdentityRequest(&r); err != nil {
		return nil, err
	}
	body, err := legacyIdentityBody(r.ConsumerID, r.ConsumerName, r.Token, r.CSR)
	if err != nil {
		return nil, err
	}
	status, answer, err := a.do(ctx, http.MethodPost, LegacyCertIdentityPath, body)
	if err != nil {
		return nil, err
	}
	if status != http.StatusAccepted && status != http.StatusCreated {
		return nil, a.refusal(status, answer, r.Token, r.ConsumerID)
	}
	return a.parseIdentityResponse(status, answer)
}

func validateLegacyIdentityRequest(r *LegacyIdentityRequest) error {
	if err := authcrypto.ValidateClusterID(r.ConsumerID); err != nil {
		return err
	}
	if r.ConsumerName == "" {
		r.ConsumerName = r.ConsumerID
	}
	if errs := validation.IsDNS1123Label(r.ConsumerName); len(errs) > 0 || len(r.ConsumerName) > LegacyMaxClusterNameLength {
		return fmt.Errorf("consumer name %q must be a DNS label of at most %d characters (a 0.x provider names the tenant namespace after it)",
			r.ConsumerName, LegacyMaxClusterNameLength)
	}
	if r.Token == "" {
		return errors.New("no token: give the provider's auth-token")
	}
	csr, err := authcrypto.ParseCSR(r.CSR)
	if err != nil {
		return err
	}
	// The provider never checks it, but the certificate's CN is the user
	// the identity authenticates as.
	if csr.Subject.CommonName != r.ConsumerID {
		return fmt.Errorf("the CSR is for %q, not for consumer %s", csr.Subject.CommonName, r.ConsumerID)
	}
	return nil
}

// legacyIdentityBody is the request both v0.3 (top-level clusterID) and
// v0.4+ (cluster) servers read (§8(1)2, §10).
func legacyIdentityBody(id, name, token string, csrPEM []byte) ([]byte, error) {
	type clusterIdentity struct {
		ClusterID   string `json:"clusterID"`
		ClusterName string `json:"clusterName"`
	}
	return json.Marshal(struct {
		ClusterID string          `json:"clusterID"`
		Cluster   clusterIdentity `json:"cluster"`
		Token     string          `json:"destinationClusterToken"`
		CSR       string          `json:"certificateSigningRequest"`
	}{id, clusterIdentity{id, name}, token, base64.StdEncoding.EncodeToString(csrPEM)})
}

func (a *LegacyAuthClient) parseIdentityResponse(status int, answer []byte) (*LegacyIdentityResponse, error) {
	var raw struct {
		Namespace    string `json:"namespace"`
		Certificate  string `json:"certificate"`
		APIServerURL string `json:"apiServerUrl"`
		APIServerCA  string `json:"apiServerCA"`
	}
	bad := func(why string) error {
		return &LegacyAuthError{URL: a.url, Status: status, Refusal: LegacyOther,
			Err: errors.New("the auth server issued an identity but its answer " + why + ": ask the provider's admin to check liqo-auth's logs")}
	}
	if err := json.Unmarshal(answer, &raw); err != nil {
		return nil, bad("is not JSON")
	}
	resp := &LegacyIdentityResponse{Namespace: raw.Namespace, APIServerURL: raw.APIServerURL}
	var err error
	if resp.Certificate, err = base64.StdEncoding.DecodeString(raw.Certificate); err != nil || len(resp.Certificate) == 0 {
		return nil, bad("has no certificate")
	}
	if _, err := authcrypto.ParseCertificatePEM(resp.Certificate); err != nil {
		return nil, bad("has no PEM certificate")
	}
	if raw.APIServerCA != "" {
		if resp.APIServerCA, err = base64.StdEncoding.DecodeString(raw.APIServerCA); err != nil {
			return nil, bad("has a CA that is not base64")
		}
	}
	if resp.Namespace == "" || resp.APIServerURL == "" {
		return nil, bad("lacks the namespace or the API server URL")
	}
	return resp, nil
}

// do sends one request, verifying TLS first; when verification fails and
// skipping was allowed, it sends it again without: a failed handshake never
// reached the server, so nothing was issued.
func (a *LegacyAuthClient) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	if a.tlsMode.Load() != legacyTLSSkipped {
		status, answer, err := a.send(ctx, a.verify, method, path, body)
		if err == nil {
			a.tlsMode.Store(legacyTLSVerified)
			return status, answer, nil
		}
		if !isTLSVerifyError(err) || a.insecure == nil {
			return 0, nil, a.unreachable(err)
		}
	}
	status, answer, err := a.send(ctx, a.insecure, method, path, body)
	if err != nil {
		return 0, nil, a.unreachable(err)
	}
	a.tlsMode.Store(legacyTLSSkipped)
	return status, answer, nil
}

func (a *LegacyAuthClient) send(ctx context.Context, c *http.Client, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.url+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "text/plain") // as Liqo's consumer sends it
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, legacyMaxResponse))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, answer, nil
}

func isTLSVerifyError(err error) bool {
	var verr *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verr) || errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid)
}

func (a *LegacyAuthClient) unreachable(err error) *LegacyAuthError {
	return &LegacyAuthError{URL: a.url, Refusal: LegacyUnreachable, Err: err, tlsVerify: isTLSVerifyError(err)}
}

func (a *LegacyAuthClient) refusal(status int, answer []byte, token, consumerID string) *LegacyAuthError {
	body := redactLegacyToken(oneLine(string(answer)), token)
	return &LegacyAuthError{URL: a.url, Status: status, Body: body, Refusal: ClassifyLegacyRefusal(status, body), consumerID: consumerID}
}

// legacyInvalidToken matches the 401 body, which echoes the token sent.
var legacyInvalidToken = regexp.MustCompile(`invalid token \\?"[^"\\]*\\?"`)

// redactLegacyToken removes the token from an answer: the 401 body echoes it.
func redactLegacyToken(body, token string) string {
	body = legacyInvalidToken.ReplaceAllString(body, `invalid token "<redacted>"`)
	if token != "" {
		body = strings.ReplaceAll(body, token, "<redacted>")
	}
	return body
}

// oneLine keeps an answer to one bounded line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// LegacyAuthError is a failure to talk to a 0.x auth server.
type LegacyAuthError struct {
	URL     string
	Status  int // 0 = no answer
	Body    string
	Refusal LegacyRefusal
	Err     error

	consumerID string
	tlsVerify  bool
}

// Error says, in one line, the cause in words and what to do; it never
// echoes the token.
func (e *LegacyAuthError) Error() string {
	switch {
	case e.Status == 0 && e.tlsVerify:
		return fmt.Sprintf("cannot verify the certificate of the Liqo 0.x auth server at %s (%v): give its CA, or allow skipping verification (--insecure-skip-tls-verify, Liqo's default: its certificate is self-signed without SAN)",
			e.URL, rootCause(e.Err))
	case e.Status == 0 && e.Err != nil && e.Refusal == LegacyUnreachable:
		return fmt.Sprintf("the Liqo 0.x auth server at %s is unreachable (%v): check the auth URL and that liqo-auth runs and is exposed to this machine",
			e.URL, rootCause(e.Err))
	case e.Err != nil:
		return fmt.Sprintf("auth server %s: %v", e.URL, e.Err)
	}
	answer := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		answer += ": " + e.Body
	}
	switch e.Refusal {
	case LegacyWrongToken:
		return fmt.Sprintf("the auth server at %s refused the token (%s): copy the provider's auth-token again (its Secret %s in the Liqo namespace, or new peer info)",
			e.URL, answer, LegacyAuthTokenSecretName)
	case LegacyAlreadyIssued:
		who := "this cluster ID"
		sel := LegacyClusterIDLabel + "=<consumer ID>"
		if e.consumerID != "" {
			who, sel = "cluster "+e.consumerID, LegacyClusterIDLabel+"="+e.consumerID
		}
		return fmt.Sprintf("the provider already issued its one identity for %s (%s): the provider's admin deletes Secret %s in the namespace labelled %s (or that namespace), then retry",
			who, answer, RemoteCertSecretName, sel)
	case LegacyIncompatible:
		return fmt.Sprintf("the auth server at %s read the request in another format (%s): %s", e.URL, answer, LegacyIncompatibleAdvice)
	}
	return fmt.Sprintf("the auth server at %s refused the request (%s)", e.URL, answer)
}

func (e *LegacyAuthError) Unwrap() error { return e.Err }

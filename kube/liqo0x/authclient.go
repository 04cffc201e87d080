package liqo0x

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
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// DefaultAuthTimeout is longer than the 30 s a 0.x auth server waits
// for the CSR to be signed: a client that gives up earlier may leave an
// identity issued that it never received, and the provider issues only one
// per cluster ID (§8(1)4).
const DefaultAuthTimeout = 40 * time.Second

// probeClusterID is not a DNS label, so the provider's API refuses the
// tenant namespace of a probe: the token is checked, nothing is created.
const probeClusterID = "Not_A_Cluster"

// maxResponse bounds what we read of an answer.
const maxResponse = 1 << 20

// AuthOptions say how to reach a Liqo 0.x auth server.
type AuthOptions struct {
	URL string // https://host[:port], as in peer info
	// InsecureSkipTLSVerify allows skipping verification when the server's certificate cannot be
	// verified (Liqo's default: the chart's certificate is self-signed without SAN). The client
	// verifies whenever it can (system roots + CAData); TLSVerified() tells what happened.
	InsecureSkipTLSVerify bool
	CAData                []byte
	Timeout               time.Duration // per request; 0 = 40s (> the server's 30 s CSR wait)
}

// AuthClient talks to a Liqo 0.x auth server (§2.3) with net/http.
type AuthClient struct {
	url      string
	verify   *http.Client
	insecure *http.Client // nil unless InsecureSkipTLSVerify
	// tlsMode is tlsUnknown until a request got an answer.
	tlsMode atomic.Int32
}

const (
	tlsUnknown int32 = iota
	tlsVerified
	tlsSkipped
)

// NewAuthClient checks the options; it refuses a non-https URL.
func NewAuthClient(o AuthOptions) (*AuthClient, error) {
	u, err := peerinfo.ValidateAuthURL(o.URL)
	if err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultAuthTimeout
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if len(o.CAData) > 0 && !roots.AppendCertsFromPEM(o.CAData) {
		return nil, errors.New("the auth server's CA holds no PEM certificate: give a PEM file")
	}
	a := &AuthClient{url: u, verify: httpClient(timeout, &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12})}
	if o.InsecureSkipTLSVerify {
		// Liqo 0.x's own default: its chart's certificate cannot be verified.
		a.insecure = httpClient(timeout, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // asked for, and used only after verification failed
	}
	return a, nil
}

func httpClient(timeout time.Duration, tlsConfig *tls.Config) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone() // keeps HTTPS_PROXY
	t.TLSClientConfig = tlsConfig
	return &http.Client{Timeout: timeout, Transport: t}
}

// URL is the auth server's URL, as normalized.
func (a *AuthClient) URL() string { return a.url }

// TLSVerified tells whether the server's certificate was verified on the
// last answered request (false before any).
func (a *AuthClient) TLSVerified() bool { return a.tlsMode.Load() == tlsVerified }

// ClusterIdentity is what GET /ids answers: {"clusterId","clusterName"}.
type ClusterIdentity struct{ ClusterID, ClusterName string }

// IDs asks the auth server which cluster it serves (unauthenticated).
func (a *AuthClient) IDs(ctx context.Context) (*ClusterIdentity, error) {
	status, body, err := a.do(ctx, http.MethodGet, IDsPath, nil)
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
		return nil, &AuthError{URL: a.url, Status: status, Body: oneLine(string(body)), Refusal: OtherRefusal,
			Err: errors.New("GET /ids did not answer a cluster ID: is this a Liqo 0.x auth server?")}
	}
	return &ClusterIdentity{ClusterID: ids.ClusterID, ClusterName: ids.ClusterName}, nil
}

// TokenCheck is what CheckToken learned.
type TokenCheck string

const (
	TokenAccepted TokenCheck = "accepted"
	TokenRefused  TokenCheck = "refused"
	// TokenAuthenticationDisabled: the server accepts any token.
	TokenAuthenticationDisabled TokenCheck = "authentication-disabled"
)

// CheckToken asks the server whether token is right WITHOUT writing anything
// on the provider: the probe's cluster ID is not a DNS label, so a server
// that accepts the token then fails to create the tenant namespace (403 "…
// is invalid"); a wrong token gets 401. When the token is accepted, a random
// wrong token tells whether authentication is disabled.
func (a *AuthClient) CheckToken(ctx context.Context, token string) (TokenCheck, error) {
	if token == "" {
		return "", errors.New("no token to check: give the provider's auth-token")
	}
	accepted, err := a.probe(ctx, token)
	if err != nil || !accepted {
		return TokenRefused, err
	}
	disabled, err := a.AuthenticationDisabled(ctx)
	if err != nil {
		return "", err
	}
	if disabled {
		return TokenAuthenticationDisabled, nil
	}
	return TokenAccepted, nil
}

// AuthenticationDisabled probes with a random wrong token: a server that
// accepts it runs with --enable-authentication=false (§2.7).
func (a *AuthClient) AuthenticationDisabled(ctx context.Context) (bool, error) {
	b := make([]byte, peerinfo.TokenLength/2)
	if _, err := rand.Read(b); err != nil {
		return false, err
	}
	return a.probe(ctx, hex.EncodeToString(b))
}

// probe tells whether the server accepted token, from the answer to a
// request that cannot create anything.
func (a *AuthClient) probe(ctx context.Context, token string) (bool, error) {
	body, err := identityBody(probeClusterID, probeClusterID, token, nil)
	if err != nil {
		return false, err
	}
	status, answer, err := a.do(ctx, http.MethodPost, CertIdentityPath, body)
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

// IdentityRequest is what the consumer sends (§2.3).
type IdentityRequest struct {
	ConsumerID, ConsumerName, Token string
	CSR                             []byte // PEM
}

// IdentityResponse is the identity the provider issued.
type IdentityResponse struct {
	Namespace    string
	Certificate  []byte // PEM
	APIServerURL string
	APIServerCA  []byte // PEM, may be nil
}

// RequestIdentity sends ONE body with both shapes (top-level clusterID AND
// cluster{clusterID,clusterName}), the CSR as base64(std) of its PEM,
// Content-Type text/plain and no originClusterToken (which would make the
// provider store a remote-token Secret); it expects 202 (201 accepted too).
// Failures are *AuthError. The provider issues one identity per
// consumer ID: callers keep the key and CSR until the answer is stored.
func (a *AuthClient) RequestIdentity(ctx context.Context, r IdentityRequest) (*IdentityResponse, error) {
	if err := validateIdentityRequest(&r); err != nil {
		return nil, err
	}
	body, err := identityBody(r.ConsumerID, r.ConsumerName, r.Token, r.CSR)
	if err != nil {
		return nil, err
	}
	status, answer, err := a.do(ctx, http.MethodPost, CertIdentityPath, body)
	if err != nil {
		return nil, err
	}
	if status != http.StatusAccepted && status != http.StatusCreated {
		return nil, a.refusal(status, answer, r.Token, r.ConsumerID)
	}
	return a.parseIdentityResponse(status, answer)
}

func validateIdentityRequest(r *IdentityRequest) error {
	if err := authcrypto.ValidateClusterID(r.ConsumerID); err != nil {
		return err
	}
	if r.ConsumerName == "" {
		r.ConsumerName = r.ConsumerID
	}
	if errs := validation.IsDNS1123Label(r.ConsumerName); len(errs) > 0 || len(r.ConsumerName) > MaxClusterNameLength {
		return fmt.Errorf("consumer name %q must be a DNS label of at most %d characters (a 0.x provider names the tenant namespace after it)",
			r.ConsumerName, MaxClusterNameLength)
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

// identityBody is the request both v0.3 (top-level clusterID) and
// v0.4+ (cluster) servers read (§8(1)2, §10).
func identityBody(id, name, token string, csrPEM []byte) ([]byte, error) {
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

func (a *AuthClient) parseIdentityResponse(status int, answer []byte) (*IdentityResponse, error) {
	var raw struct {
		Namespace    string `json:"namespace"`
		Certificate  string `json:"certificate"`
		APIServerURL string `json:"apiServerUrl"`
		APIServerCA  string `json:"apiServerCA"`
	}
	bad := func(why string) error {
		return &AuthError{URL: a.url, Status: status, Refusal: OtherRefusal,
			Err: errors.New("the auth server issued an identity but its answer " + why + ": ask the provider's admin to check liqo-auth's logs")}
	}
	if err := json.Unmarshal(answer, &raw); err != nil {
		return nil, bad("is not JSON")
	}
	resp := &IdentityResponse{Namespace: raw.Namespace, APIServerURL: raw.APIServerURL}
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
func (a *AuthClient) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	if a.tlsMode.Load() != tlsSkipped {
		status, answer, err := a.send(ctx, a.verify, method, path, body)
		if err == nil {
			a.tlsMode.Store(tlsVerified)
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
	a.tlsMode.Store(tlsSkipped)
	return status, answer, nil
}

func (a *AuthClient) send(ctx context.Context, c *http.Client, method, path string, body []byte) (int, []byte, error) {
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
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
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

func (a *AuthClient) unreachable(err error) *AuthError {
	return &AuthError{URL: a.url, Refusal: Unreachable, Err: err, tlsVerify: isTLSVerifyError(err)}
}

func (a *AuthClient) refusal(status int, answer []byte, token, consumerID string) *AuthError {
	body := redactToken(oneLine(string(answer)), token)
	return &AuthError{URL: a.url, Status: status, Body: body, Refusal: ClassifyRefusal(status, body), consumerID: consumerID}
}

// invalidToken matches the 401 body, which echoes the token sent.
var invalidToken = regexp.MustCompile(`invalid token \\?"[^"\\]*\\?"`)

// redactToken removes the token from an answer: the 401 body echoes it.
func redactToken(body, token string) string {
	body = invalidToken.ReplaceAllString(body, `invalid token "<redacted>"`)
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

// AuthError is a failure to talk to a 0.x auth server.
type AuthError struct {
	URL     string
	Status  int // 0 = no answer
	Body    string
	Refusal Refusal
	Err     error

	consumerID string
	tlsVerify  bool
}

// Error says, in one line, the cause in words and what to do; it never
// echoes the token.
func (e *AuthError) Error() string {
	switch {
	case e.Status == 0 && e.tlsVerify:
		return fmt.Sprintf("cannot verify the certificate of the Liqo 0.x auth server at %s (%v): give its CA, or allow skipping verification (--insecure-skip-tls-verify, Liqo's default: its certificate is self-signed without SAN)",
			e.URL, kube.RootCause(e.Err))
	case e.Status == 0 && e.Err != nil && e.Refusal == Unreachable:
		return fmt.Sprintf("the Liqo 0.x auth server at %s is unreachable (%v): check the auth URL and that liqo-auth runs and is exposed to this machine",
			e.URL, kube.RootCause(e.Err))
	case e.Err != nil:
		return fmt.Sprintf("auth server %s: %v", e.URL, e.Err)
	}
	answer := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		answer += ": " + e.Body
	}
	switch e.Refusal {
	case WrongToken:
		return fmt.Sprintf("the auth server at %s refused the token (%s): copy the provider's auth-token again (its Secret %s in the Liqo namespace, or new peer info)",
			e.URL, answer, AuthTokenSecretName)
	case AlreadyIssued:
		who := "this cluster ID"
		sel := ClusterIDLabel + "=<consumer ID>"
		if e.consumerID != "" {
			who, sel = "cluster "+e.consumerID, ClusterIDLabel+"="+e.consumerID
		}
		return fmt.Sprintf("the provider already issued its one identity for %s (%s): the provider's admin deletes Secret %s in the namespace labelled %s (or that namespace), then retry",
			who, answer, kube.RemoteCertSecretName, sel)
	case Incompatible:
		return fmt.Sprintf("the auth server at %s read the request in another format (%s): %s", e.URL, answer, IncompatibleAdvice)
	}
	return fmt.Sprintf("the auth server at %s refused the request (%s)", e.URL, answer)
}

func (e *AuthError) Unwrap() error { return e.Err }

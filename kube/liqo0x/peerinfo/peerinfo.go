package peerinfo

import (
	"fmt"
	"net/url"
	"strings"
)

// Line is a family of Liqo 0.x releases that share one identity request
// format (liqo-legacy-auth.md §5): only the same line interoperates.
type Line string

const (
	LineUnknown Line = ""
	// V02 issues ServiceAccount-token identities (§6): explained, not supported.
	V02 Line = "v0.2"
	// V03 sends "clusterID" at the top of the identity request.
	V03 Line = "v0.3"
	// V04 (v0.4.0 … v0.10.3) sends "cluster":{"clusterID","clusterName"}.
	V04 Line = "v0.4+"
)

// TokenLength: 64 random bytes as lowercase hex (§2.1).
const TokenLength = 128

// Info is what a consumer needs to authenticate with a Liqo 0.x
// provider, as `liqoctl generate peer-command` prints it (§4). Token is a
// credential: never log it.
type Info struct {
	ClusterID   string `json:"clusterID"`
	ClusterName string `json:"clusterName"`
	AuthURL     string `json:"authURL"`
	Token       string `json:"token"`
	// Version is the provider's Liqo release ("" unknown) and Line its
	// identity-request family.
	Version string `json:"version,omitempty"`
	Line    Line   `json:"line,omitempty"`
	// AuthenticationDisabled: the provider's auth server runs with
	// --enable-authentication=false and accepts any token (§2.7).
	AuthenticationDisabled bool `json:"authenticationDisabled,omitempty"`
	// AuthenticationUnknown: the liqo-auth Deployment was missing or not
	// readable (and, once flows asked the auth server, that did not answer
	// either), so AuthenticationDisabled tells nothing. Not in the artifact.
	AuthenticationUnknown bool `json:"-"`
}

// MaskedToken is the token as screens show it until revealed.
func (p *Info) MaskedToken() string { return MaskToken(p.Token) }

// MaskToken keeps the first and last 4 characters of a token.
func MaskToken(token string) string {
	if len(token) <= 8 {
		return strings.Repeat("•", len(token))
	}
	return token[:4] + strings.Repeat("•", 8) + token[len(token)-4:]
}

// ValidateAuthURL checks an auth URL given by hand: https, a host, no
// path beyond "/". It returns it without a trailing slash.
func ValidateAuthURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("auth URL %q is not a URL: give it as https://host[:port]", raw)
	}
	if u.Scheme != "https" {
		return "", fmt.Errorf("auth URL %q is not https: Liqo 0.x consumers only speak https, give https://host[:port]", raw)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("auth URL %q has more than a host and port: give it as https://host[:port]", raw)
	}
	return "https://" + u.Host, nil
}

package kube

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"k8s.io/client-go/rest"
)

// proxySchemes are the proxy schemes client-go (net/http) can dial.
var proxySchemes = []string{"http", "https", "socks5"}

// ParseProxyURL checks a proxy URL as the consumer's kubeconfig will use it
// (the Tenant's spec.proxyURL, §5.2, and the kubeconfig's proxy-url, §8):
// an http, https or socks5 URL with a host. "" means no proxy (nil, nil).
func ParseProxyURL(s string) (*url.URL, error) {
	if s == "" {
		return nil, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: give http://HOST:PORT", s)
	}
	if !slices.Contains(proxySchemes, u.Scheme) || u.Opaque != "" {
		return nil, fmt.Errorf("%q: the scheme must be http, https or socks5, as in http://HOST:PORT", s)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%q has no host: give http://HOST:PORT", s)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%q: port %s is not between 1 and 65535", s, p)
		}
	}
	return u, nil
}

// proxyOf is the proxy cfg's clients go through to reach cfg.Host, redacted
// for messages: the kubeconfig's proxy-url (cfg.Proxy) or, as client-go
// does without one, the HTTPS_PROXY/HTTP_PROXY environment. "" = direct.
func proxyOf(cfg *rest.Config) string {
	proxy := cfg.Proxy
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	server, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return ""
	}
	u, err := proxy(&http.Request{URL: server, Header: http.Header{}})
	if err != nil || u == nil {
		return ""
	}
	return u.Redacted()
}

// Reach wraps err, from a request to this cluster, in a classified
// ReachError that names the server and the proxy on the way, if any.
func (c *Cluster) Reach(err error) error {
	if err == nil {
		return nil
	}
	class, hint := ClassifyError(err)
	return &ReachError{Server: c.Server, Proxy: c.Proxy, Class: class, Hint: hint, Err: err}
}

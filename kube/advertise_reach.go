package kube

import (
	"context"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// advertisedProbeTimeout bounds CheckAdvertisedAPIServer: an address that
// does not answer in that time is as good as unreachable for a consumer.
const advertisedProbeTimeout = 5 * time.Second

// CheckAdvertisedAPIServer tells whether the API server a provider
// advertised (an Identity's authParams) answers from this machine: a TLS
// handshake verified with ca (nil: the system roots) and GET /version,
// through proxyURL when set. No credentials are sent: a 401 or 403 still
// proves the address and the CA right. A failure is a *ReachError without hint.
func CheckAdvertisedAPIServer(ctx context.Context, apiServer string, ca []byte, proxyURL string) error {
	cfg := &rest.Config{Host: apiServer, Timeout: advertisedProbeTimeout, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
	proxy := ""
	if proxyURL != "" {
		u, err := ParseProxyURL(proxyURL)
		if err != nil {
			return &ReachError{Server: apiServer, Class: FailureProxy, Err: err}
		}
		cfg.Proxy, proxy = http.ProxyURL(u), u.Redacted()
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return &ReachError{Server: apiServer, Proxy: proxy, Class: FailureOther, Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, advertisedProbeTimeout)
	defer cancel()
	_, err = dc.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err == nil || apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) {
		return nil
	}
	// No hint: ClassifyError's speak of the kubeconfig; the caller knows
	// who can fix an advertised address.
	class, _ := ClassifyError(err)
	return &ReachError{Server: apiServer, Proxy: proxy, Class: class, Err: err}
}

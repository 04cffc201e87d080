package controller

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

// apiRequests counts the requests the controller's clients send to the API
// server, so that the cost of a reconcile can be read off /metrics.
var apiRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "liqo_auth_api_requests_total",
	Help: "Requests sent to the API server, by verb (get, list, watch, create, update, patch, delete, deletecollection), resource (with /subresource) and HTTP code.",
}, []string{"verb", "resource", "code"})

// CountAPIRequests returns a copy of cfg whose clients count every request
// in liqo_auth_api_requests_total (registered by RegisterMetrics). Build the
// Cluster from the returned config.
func CountAPIRequests(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.WrapTransport = transport.Wrappers(cfg.WrapTransport, func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt} })
	return cfg
}

type countingTransport struct{ next http.RoundTripper }

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	verb, resource := requestKind(req)
	apiRequests.WithLabelValues(verb, resource, code).Inc()
	return resp, err
}

// requestKind names the verb and resource of an API request from its method
// and path, the way the API server's RequestInfo does:
// /api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]] and
// /apis/{group}/{version}/... alike.
func requestKind(req *http.Request) (verb, resource string) {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return strings.ToLower(req.Method), "nonresource"
	}
	// namespaces/{ns}/{resource}/..., except the namespace's own
	// subresources (namespaces/{name}/status|finalize).
	if len(parts) >= 3 && parts[0] == "namespaces" && parts[2] != "status" && parts[2] != "finalize" {
		parts = parts[2:]
	}
	named := len(parts) >= 2
	if len(parts) > 0 {
		resource = parts[0]
	}
	if len(parts) >= 3 {
		resource += "/" + parts[2]
	}
	switch req.Method {
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
		if !named {
			verb = "deletecollection"
		}
	default:
		verb = strings.ToLower(req.Method)
	}
	return verb, resource
}

package controller

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRequestKind(t *testing.T) {
	for _, tc := range []struct{ method, url, verb, resource string }{
		{"GET", "/api/v1/namespaces/liqo-tenant-a/secrets/liqo-remote-certificate", "get", "secrets"},
		{"GET", "/api/v1/secrets?labelSelector=liqo.io%2Fnonce", "list", "secrets"},
		{"GET", "/api/v1/secrets?watch=true&labelSelector=liqo.io%2Fnonce", "watch", "secrets"},
		{"GET", "/api/v1/namespaces", "list", "namespaces"},
		{"GET", "/api/v1/namespaces/liqo", "get", "namespaces"},
		{"PUT", "/api/v1/namespaces/liqo/finalize", "update", "namespaces/finalize"},
		{"POST", "/api/v1/namespaces/default/events", "create", "events"},
		{"PUT", "/apis/authentication.liqo.io/v1beta1/namespaces/ns/tenants/t/status", "update", "tenants/status"},
		{"PUT", "/apis/certificates.k8s.io/v1/certificatesigningrequests/liqo-identity-x/approval", "update", "certificatesigningrequests/approval"},
		{"DELETE", "/apis/certificates.k8s.io/v1/certificatesigningrequests?labelSelector=a", "deletecollection", "certificatesigningrequests"},
		{"DELETE", "/apis/certificates.k8s.io/v1/certificatesigningrequests/x", "delete", "certificatesigningrequests"},
		{"PATCH", "/apis/coordination.k8s.io/v1/namespaces/liqo/leases/l", "patch", "leases"},
		{"GET", "/version", "get", "nonresource"},
	} {
		u, err := url.Parse(tc.url)
		assert.NoError(t, err)
		verb, resource := requestKind(&http.Request{Method: tc.method, URL: u})
		assert.Equal(t, tc.verb, verb, tc.url)
		assert.Equal(t, tc.resource, resource, tc.url)
	}
}

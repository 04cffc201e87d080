package liqo0x

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// What doctor reads of Liqo 0.x beyond the overview's lists.

// AuthServerURL is the auth URL `liqoctl generate peer-command` would
// advertise for this provider (Service liqo-auth, §2.2).
func (c *Cluster) AuthServerURL(ctx context.Context) (string, error) {
	return c.discoverAuthURL(ctx, "")
}

// ForeignClusterAuthURL is where a consumer's Liqo asks for its identity
// (spec.foreignAuthUrl), and whether it skips TLS verification there (the
// CRD's default: true).
func ForeignClusterAuthURL(fc *unstructured.Unstructured) (url string, insecureSkipTLSVerify bool) {
	url, _, _ = unstructured.NestedString(fc.Object, "spec", "foreignAuthUrl")
	insecure, found, _ := unstructured.NestedBool(fc.Object, "spec", "insecureSkipTLSVerify")
	return url, insecure || !found
}

// ForeignClusterRefusal is the refusal the ForeignCluster of providerID
// shows now, nil when none: one that quotes a token this cluster no longer
// stores is an earlier attempt's and does not count (when the token Secrets
// cannot be read, every refusal counts).
func (c *Cluster) ForeignClusterRefusal(ctx context.Context, fc *unstructured.Unstructured, providerID string) *AuthFailure {
	tokens, err := c.storedTokens(ctx, providerID)
	if err != nil {
		tokens = nil
	}
	return failureOf(fc, providerID, tokens)
}

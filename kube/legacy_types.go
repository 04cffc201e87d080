package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/legacypeer"
)

// Liqo 0.x names and labels (../shared/liqo-legacy-auth.md, section in
// brackets). Liqo 0.x looks objects up by these: they must match byte for byte.
const (
	LegacyClusterIDLabel              = "discovery.liqo.io/cluster-id"       // §2.4, §3.1, §3.3
	LegacyAuthTokenLabel              = "discovery.liqo.io/auth-token"       // §3.1
	LegacyTenantNamespaceLabel        = "discovery.liqo.io/tenant-namespace" // §2.4
	LegacyLocalIdentityLabel          = "discovery.liqo.io/local-identity"   // §3.5
	LegacyCertificateAvailableLabel   = "discovery.liqo.io/certificate-available"
	LegacyRemoteTenantCSRLabel        = "discovery.liqo.io/remote-tenant-csr" // §2.4
	LegacyCertificateExpireAnnotation = "discovery.liqo.io/certificate-expire-time"
	LegacyAuthTokenSecretName         = "auth-token" // §2.1, in the auth server's namespace
	LegacyAuthTokenField              = "token"
	LegacyRemoteTokenPrefix           = "remote-token-"  // + provider ID (§3.1)
	LegacyIdentitySecretPrefix        = "liqo-identity-" // generateName (§2.4, §3.5)
	LegacyBasicBindingName            = "liqo-binding-liqo-remote-peering-basic"
	LegacyPeeringPermissionLabel      = "auth.liqo.io/remote-peering-permissions"
	LegacyOverrideAddressAnnotation   = "liqo.io/override-address" // on Service liqo-auth (§2.2)
	LegacyOverridePortAnnotation      = "liqo.io/override-port"
	LegacyClusterNameKey              = "CLUSTER_NAME" // of the cluster-ID ConfigMap
	LegacyIDsPath                     = "/ids"
	LegacyCertIdentityPath            = "/identity/certificate"
	// LegacyTokenLength: 64 random bytes as lowercase hex (§2.1).
	LegacyTokenLength = legacypeer.TokenLength
	// LegacyMaxClusterNameLength keeps liqo-tenant-<name>-<6 hex> a DNS
	// label on v0.4+ providers (§2.4).
	LegacyMaxClusterNameLength = 44
	// LegacyReconcileLabel is bumped on a ForeignCluster to wake Liqo
	// v0.10's controller after a token change, which it does not watch (§3.2).
	LegacyReconcileLabel = "liqo-auth-tui.io/token-updated"
	// LegacyClientLabel marks what this tool made as a 0.x consumer
	// without Liqo (its kubeconfig Secret, its pending key Secret).
	LegacyClientLabel = "liqo-auth-tui.io/liqo-0x-identity"
	// LegacyPendingSecretPrefix + provider ID: the key and CSR of an
	// identity request not answered yet, so that a re-run resends the same
	// CSR instead of burning the one identity per cluster ID.
	LegacyPendingSecretPrefix = "liqo-0x-pending-"
	LegacyPendingKeyField     = "private-key"
	LegacyPendingCSRField     = "csr"
)

// LegacyForeignClusters is Liqo 0.x's cluster-scoped ForeignCluster (§3.3).
var LegacyForeignClusters = schema.GroupVersionResource{Group: "discovery.liqo.io", Version: "v1alpha1", Resource: "foreignclusters"}

// LegacyTenantNamespaceName is the name a 0.x provider gives the tenant
// namespace of a consumer (§2.4): liqo-tenant-<ID> on v0.3,
// liqo-tenant-<name>-<6 hex of SHA-256(ID)> on v0.4+. Providers look it up
// by label, so an existing namespace may have another name.
func LegacyTenantNamespaceName(line LegacyLine, clusterID, clusterName string) string {
	if line == LegacyV03 {
		return TenantNamespacePrefix + clusterID
	}
	sum := sha256.Sum256([]byte(clusterID))
	return TenantNamespacePrefix + clusterName + "-" + hex.EncodeToString(sum[:3])
}

// LegacyPeerInfo is what a consumer needs to authenticate with a Liqo 0.x
// provider (§4); it lives in legacypeer so that its parsers need no client.
type LegacyPeerInfo = legacypeer.PeerInfo

// LegacyRefusal is why a 0.x provider refused an identity request.
type LegacyRefusal string

// LegacyIncompatibleAdvice is what to do about a LegacyIncompatible
// refusal: the words of handshake.Liqo03And04Incompatible, which kube may
// not import (a flows test keeps them equal).
const LegacyIncompatibleAdvice = "Liqo v0.3 and v0.4+ send identity requests in different formats and cannot authenticate each other: " +
	"upgrade the v0.3 cluster to Liqo v0.4.0 or later (v0.10.3 is the last 0.x)"

const (
	// LegacyWrongToken: 401 `invalid token "…"` (§2.3).
	LegacyWrongToken LegacyRefusal = "wrong-token"
	// LegacyAlreadyIssued: 403, a liqo-remote-certificate already exists for
	// this cluster ID (same CSR: empty body; another CSR: "… does not match").
	LegacyAlreadyIssued LegacyRefusal = "already-issued"
	// LegacyUnreachable: no HTTP answer (connection, TLS, timeout).
	LegacyUnreachable LegacyRefusal = "unreachable"
	// LegacyIncompatible: the request was read with another format (v0.3
	// vs v0.4+): the provider's API refused an empty name.
	LegacyIncompatible LegacyRefusal = "incompatible"
	// LegacyOther: any other refusal; the body says why.
	LegacyOther LegacyRefusal = "other"
)

// ClassifyLegacyRefusal reads an auth server's answer (status 0 = no HTTP
// answer; body as sent, or as the 0.x consumer's ForeignCluster condition
// quotes it).
func ClassifyLegacyRefusal(status int, body string) LegacyRefusal {
	switch {
	case status == 401 || strings.Contains(body, "invalid token"):
		return LegacyWrongToken
	case strings.Contains(body, "the stored and the provided CSR") ||
		status == 403 && strings.TrimSpace(body) == "":
		return LegacyAlreadyIssued
	case strings.Contains(body, `"liqo-tenant-" is invalid`) || strings.Contains(body, "subjects[0].name: Required value") ||
		strings.Contains(body, `"liqo-tenant--`):
		return LegacyIncompatible
	case status == 0:
		return LegacyUnreachable
	}
	return LegacyOther
}

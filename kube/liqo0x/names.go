package liqo0x

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// Liqo 0.x names and labels (../shared/liqo-legacy-auth.md, section in
// brackets). Liqo 0.x looks objects up by these: they must match byte for byte.
const (
	ClusterIDLabel              = "discovery.liqo.io/cluster-id"       // §2.4, §3.1, §3.3
	AuthTokenLabel              = "discovery.liqo.io/auth-token"       // §3.1
	TenantNamespaceLabel        = "discovery.liqo.io/tenant-namespace" // §2.4
	LocalIdentityLabel          = "discovery.liqo.io/local-identity"   // §3.5
	CertificateAvailableLabel   = "discovery.liqo.io/certificate-available"
	RemoteTenantCSRLabel        = "discovery.liqo.io/remote-tenant-csr" // §2.4
	CertificateExpireAnnotation = "discovery.liqo.io/certificate-expire-time"
	AuthTokenSecretName         = "auth-token" // §2.1, in the auth server's namespace
	AuthTokenField              = "token"
	RemoteTokenPrefix           = "remote-token-"  // + provider ID (§3.1)
	IdentitySecretPrefix        = "liqo-identity-" // generateName (§2.4, §3.5)
	BasicBindingName            = "liqo-binding-liqo-remote-peering-basic"
	PeeringPermissionLabel      = "auth.liqo.io/remote-peering-permissions"
	OverrideAddressAnnotation   = "liqo.io/override-address" // on Service liqo-auth (§2.2)
	OverridePortAnnotation      = "liqo.io/override-port"
	ClusterNameKey              = "CLUSTER_NAME" // of the cluster-ID ConfigMap
	IDsPath                     = "/ids"
	CertIdentityPath            = "/identity/certificate"
	// MaxClusterNameLength keeps liqo-tenant-<name>-<6 hex> a DNS
	// label on v0.4+ providers (§2.4).
	MaxClusterNameLength = 44
	// ReconcileLabel is bumped on a ForeignCluster to wake Liqo
	// v0.10's controller after a token change, which it does not watch (§3.2).
	ReconcileLabel = "liqo-auth-tui.io/token-updated"
	// ClientLabel marks what this tool made as a 0.x consumer
	// without Liqo (its kubeconfig Secret, its pending key Secret).
	ClientLabel = kube.Liqo0xClientLabel
	// PendingSecretPrefix + provider ID: the key and CSR of an
	// identity request not answered yet, so that a re-run resends the same
	// CSR instead of burning the one identity per cluster ID.
	PendingSecretPrefix = "liqo-0x-pending-"
	PendingKeyField     = "private-key"
	PendingCSRField     = "csr"
)

// ForeignClusters is Liqo 0.x's cluster-scoped ForeignCluster (§3.3).
var ForeignClusters = schema.GroupVersionResource{Group: "discovery.liqo.io", Version: "v1alpha1", Resource: "foreignclusters"}

// TenantNamespaceName is the name a 0.x provider gives the tenant
// namespace of a consumer (§2.4): liqo-tenant-<ID> on v0.3,
// liqo-tenant-<name>-<6 hex of SHA-256(ID)> on v0.4+. Providers look it up
// by label, so an existing namespace may have another name.
func TenantNamespaceName(line peerinfo.Line, clusterID, clusterName string) string {
	if line == peerinfo.V03 {
		return kube.TenantNamespacePrefix + clusterID
	}
	sum := sha256.Sum256([]byte(clusterID))
	return kube.TenantNamespacePrefix + clusterName + "-" + hex.EncodeToString(sum[:3])
}

// Refusal is why a 0.x provider refused an identity request.
type Refusal string

// IncompatibleAdvice is what to do about an Incompatible refusal: the
// words of handshake.Liqo03And04Incompatible, which kube may not import
// (a flows test keeps them equal).
const IncompatibleAdvice = "Liqo v0.3 and v0.4+ send identity requests in different formats and cannot authenticate each other: " +
	"upgrade the v0.3 cluster to Liqo v0.4.0 or later (v0.10.3 is the last 0.x)"

const (
	// WrongToken: 401 `invalid token "…"` (§2.3).
	WrongToken Refusal = "wrong-token"
	// AlreadyIssued: 403, a liqo-remote-certificate already exists for
	// this cluster ID (same CSR: empty body; another CSR: "… does not match").
	AlreadyIssued Refusal = "already-issued"
	// Unreachable: no HTTP answer (connection, TLS, timeout).
	Unreachable Refusal = "unreachable"
	// Incompatible: the request was read with another format (v0.3
	// vs v0.4+): the provider's API refused an empty name.
	Incompatible Refusal = "incompatible"
	// OtherRefusal: any other refusal; the body says why.
	OtherRefusal Refusal = "other"
)

// ClassifyRefusal reads an auth server's answer (status 0 = no HTTP
// answer; body as sent, or as the 0.x consumer's ForeignCluster condition
// quotes it).
func ClassifyRefusal(status int, body string) Refusal {
	switch {
	case status == 401 || strings.Contains(body, "invalid token"):
		return WrongToken
	case strings.Contains(body, "the stored and the provided CSR") ||
		status == 403 && strings.TrimSpace(body) == "":
		return AlreadyIssued
	case strings.Contains(body, `"liqo-tenant-" is invalid`) || strings.Contains(body, "subjects[0].name: Required value") ||
		strings.Contains(body, `"liqo-tenant--`):
		return Incompatible
	case status == 0:
		return Unreachable
	}
	return OtherRefusal
}

package kube

import authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"

// Names and labels of the authentication module after the first handshake:
// replication of ResourceSlices and Renews from the consumer to the
// provider (protocol spec §10), resource acquisition (§10.1) and renewal
// (§10.2). The peer's controllers look these up: byte for byte Liqo's.
const (
	// ReplicationLabel=true marks a consumer object to copy to the provider
	// named by RemoteIDLabel; the copy carries ReplicationLabel=false.
	ReplicationLabel = "liqo.io/replication"
	RemoteIDLabel    = "liqo.io/remoteID"
	// ReplicatedLabel=true and OriginIDLabel=<consumerID> mark the copy on
	// the provider (with RemoteClusterIDLabel=<consumerID>).
	ReplicatedLabel = "liqo.io/replicated"
	OriginIDLabel   = "liqo.io/originID"
	// OwnershipLabel names the local component owning an object; Liqo's
	// replicator drops it from the copy (the rest of the labels, remoteID
	// included, are kept).
	OwnershipLabel = "liqo.io/ownership"

	// ResourceSliceNameLabel is on a ResourceSlice Identity: its slice.
	ResourceSliceNameLabel = "liqo.io/resourceslice-name"
	// ResourceSliceIdentityPrefix names a slice's Identity
	// (resourceslice-<slice>); its kubeconfig Secret adds KubeconfigSecretPrefix.
	ResourceSliceIdentityPrefix = "resourceslice-"
	// CreateVirtualNodeAnnotation ("true") asks Liqo for a VirtualNode.
	CreateVirtualNodeAnnotation = "liqo.io/create-virtual-node"
	// CordonTenantAnnotation ("true") is set on a consumer's replicated
	// slices while its Tenant is Cordoned (§5.5).
	CordonTenantAnnotation = "liqo.io/cordon-tenant"
	// CordonResourceAnnotation ("true") is set by the provider's admin on
	// one replicated slice (liqoctl cordon resourceslice); Liqo's offloading
	// then admits no new pods through it. Liqo's webhook keeps consumers
	// from setting or removing it (§10.1).
	CordonResourceAnnotation = "liqo.io/cordon"

	// ReplicaFinalizer holds a local object the replicator copied until its
	// copy on the provider is gone; ReplicatorSecretFinalizer holds the
	// control-plane kubeconfig Secret while objects replicated through it
	// remain, here or on the provider. Liqo's crd-replicator puts and
	// takes off the same, so either replicator lets the other's objects go.
	ReplicaFinalizer          = "crdreplicator.liqo.io/resource"
	ReplicatorSecretFinalizer = "crdreplicator.liqo.io/operator"
)

// ReplicationSelector selects the local objects to copy to a provider.
func ReplicationSelector(providerID string) string {
	return ReplicationLabel + "=true," + RemoteIDLabel + "=" + providerID
}

// ResourceSliceIdentityName is the Identity made for an accepted slice.
func ResourceSliceIdentityName(slice string) string { return ResourceSliceIdentityPrefix + slice }

// ResourceSliceCertSecretName is the provider's certificate cache Secret of
// a slice (liqo-remote-certificate-<slice>, §6.3 step 5).
func ResourceSliceCertSecretName(slice string) string { return RemoteCertSecretName + "-" + slice }

// ResourceSliceUser is the CN of a slice certificate: the slice name, a dash
// and the first 6 bytes of SHA-256(consumerID) as 12 lowercase hex
// characters (§10.1). Its O is the consumer ID.
func ResourceSliceUser(slice, consumerID string) string {
	return authcrypto.ResourceSliceCommonName(slice, consumerID)
}

// LastRenewalAnnotation is ours, not Liqo's: the consumer's renewer sets it
// on an Identity (RFC 3339 time) each time it applies a certificate the
// provider renewed (§10.2); `verify` shows it.
const LastRenewalAnnotation = "liqo-auth-tui.io/last-renewal"

// RenewAnnotation ("true" or "True") on an Identity is Liqo v1.0–v1.1's
// way to ask for its renewal now (§10.2); this project's consumer honours
// it too (kube/controller/renew_v11_consumer.go).
const RenewAnnotation = "liqo.io/renew"

// RenewAskedAnnotation is ours, not Liqo's: while the consumer asks for a
// renewal itself (Liqo v1.0–v1.1 providers never renew by themselves), it
// sets on the Renew the time of the current ask (RFC 3339). Its change is
// what makes such a provider look at the Renew again.
const RenewAskedAnnotation = "liqo-auth-tui.io/renew-asked"

// ReplicaLabels are the labels of the copy of a local object on the provider
// (§10), as Liqo's crd-replicator makes them: the local labels (remoteID
// included) without OwnershipLabel, with ReplicationLabel=false,
// ReplicatedLabel=true, and OriginIDLabel and RemoteClusterIDLabel set to
// the consumer's cluster ID.
func ReplicaLabels(local map[string]string, consumerID string) map[string]string {
	out := make(map[string]string, len(local)+2)
	for k, v := range local {
		if k != OwnershipLabel {
			out[k] = v
		}
	}
	out[ReplicationLabel] = "false"
	out[ReplicatedLabel] = "true"
	out[OriginIDLabel] = consumerID
	out[RemoteClusterIDLabel] = consumerID
	return out
}

// ReplicaSelector selects the copies a consumer made on a provider.
func ReplicaSelector(consumerID string) string {
	return ReplicatedLabel + "=true," + OriginIDLabel + "=" + consumerID
}

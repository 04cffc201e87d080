package controller

import "github.com/liqo-auth-tui/liqo-auth-tui/kube"

// Event reasons. They are Liqo's (protocol spec §3.3, §4.3, §6.2, §8, §11):
// tools and people that know Liqo look for these words.
const (
	// Nonce creator (provider).
	ReasonMissingLabels           = "MissingLabels"
	ReasonMissingClusterID        = "MissingClusterID"
	ReasonTenantNamespaceNotFound = "TenantNamespaceNotFound"
	ReasonWrongNamespace          = "WrongNamespace"
	ReasonNonceGenerated          = "NonceGenerated"

	// Nonce signer (consumer).
	ReasonMissingRemoteClusterID = "MissingRemoteClusterID"
	ReasonNonceSigned            = "NonceSigned"

	// Tenant reconciler (provider); the handshake reasons live in kube.
	ReasonNonceNotFound                        = kube.ReasonNonceNotFound
	ReasonSignatureVerificationFailed          = kube.ReasonSignatureVerificationFailed
	ReasonInvalidCSR                           = kube.ReasonInvalidCSR
	ReasonInvalidPublicKey                     = kube.ReasonInvalidPublicKey
	ReasonInvalidTenant                        = kube.ReasonInvalidTenant
	ReasonTenantNamespaceCreationFailed        = "TenantNamespaceCreationFailed"
	ReasonCertificateRenewalCheckFailed        = "CertificateRenewalCheckFailed"
	ReasonAuthParamsFailed                     = "AuthParamsFailed"
	ReasonClusterRolesBindingFailed            = "ClusterRolesBindingFailed"
	ReasonClusterRolesClusterWideBindingFailed = "ClusterRolesClusterWideBindingFailed"
	ReasonClusterRolesUnbindingSuccess         = "ClusterRolesUnbindingSuccess"
	ReasonClusterRolesUnbindingFailed          = "ClusterRolesUnbindingFailed"
	ReasonResourceSlicesDeleted                = "ResourceSlicesDeleted"
	ReasonNamespaceMapsDeleted                 = "NamespaceMapsDeleted"
	ReasonUpdateFailed                         = "UpdateFailed"
	ReasonReconciled                           = "Reconciled"
	ReasonCertificateRenewed                   = "CertificateRenewed"

	// Identity reconciler (consumer). KubeconfigFailed is ours: Liqo only
	// logs, but a missing key pair deserves to be seen on the Identity.
	ReasonKubeconfigEnsured = "KubeconfigEnsured"
	ReasonKubeconfigFailed  = "KubeconfigFailed"
)

// Replication and renewal (§10). Liqo's replicator only logs; these say on
// the local object what blocks its copy to the provider.
const (
	ReasonKubeconfigNotFound   = "KubeconfigNotFound"
	ReasonReplicationForbidden = "ReplicationForbidden"
	ReasonReplicationFailed    = "ReplicationFailed"
	// ReplicaLeft: a local object deleted without its copy on the
	// provider (refused, or no kubeconfig left to reach it).
	ReasonReplicaLeft     = "ReplicaLeft"
	ReasonIdentityRenewed = "IdentityRenewed"
	ReasonRenewRefused    = "RenewRefused"
	// The consumer asks for a renewal itself (Liqo v1.0–v1.1 providers),
	// and its ask brought no new certificate.
	ReasonRenewalAsked          = "RenewalAsked"
	ReasonCertificateNotRenewed = "CertificateNotRenewed"
)

// ResourceSlice reconcilers (§10.1). The provider's Normal Events on a
// condition's change are Liqo's, named by the condition's reason
// (kube.SliceAuthenticationAcceptedReason, ...); InvalidCSR (a CSR that
// fails the checks, final until the slice changes, like a Tenant's) and
// StorageClassesFailed are Liqo's too. The others are ours, for humans:
// the why that Liqo's conditions do not say.
const (
	// Provider.
	ReasonResourcesDenied        = "ResourcesDenied"
	ReasonSliceCertificateFailed = "SliceCertificateFailed"
	ReasonStorageClassesFailed   = "StorageClassesFailed"
	// Consumer.
	ReasonResourceSliceCSRCreated = "ResourceSliceCSRCreated"
	ReasonIdentityEnsured         = "IdentityEnsured"
	ReasonIdentityDeleted         = "IdentityDeleted"
)

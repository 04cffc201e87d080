// Package kube holds what the tool knows about Kubernetes and Liqo: names,
// labels and lookups of the Liqo authentication objects, clients, the
// cluster identity and key pair, CSR issuance and RBAC.
package kube

// Names, labels and keys shared with real Liqo v1.x (protocol spec §1–§8, §14).
// The peer looks these up, so they must match byte for byte.
const (
	DefaultLiqoNamespace = "liqo"

	ClusterIDConfigMapName = "liqo-clusterid-configmap"
	ClusterIDKey           = "CLUSTER_ID"
	// ClusterIDSelector finds the cluster-ID ConfigMap; Liqo never uses its name.
	ClusterIDSelector = "app.kubernetes.io/name=clusterid-configmap"

	AuthKeysSecretName = "authentication-keys"
	PrivateKeyField    = "privateKey"
	PublicKeyField     = "publicKey"

	TenantNamespacePrefix = "liqo-tenant-"

	RemoteClusterIDLabel  = "liqo.io/remote-cluster-id"
	TenantNamespaceLabel  = "liqo.io/tenant-namespace"
	NonceLabel            = "liqo.io/nonce"
	SignedNonceLabel      = "liqo.io/signed-nonce"
	IdentityTypeLabel     = "liqo.io/identity-type"
	RemoteTenantCSRLabel  = "liqo.io/remote-tenant-csr"
	RemoteTenantNamespace = "liqo.io/remote-tenant-namespace" // annotation on kubeconfig Secrets

	NonceSecretName        = "liqo-nonce"
	NonceField             = "nonce"
	SignedNonceSecretName  = "liqo-signed-nonce"
	SignedNonceField       = "signedNonce"
	RemoteCertSecretName   = "liqo-remote-certificate"
	TenantFinalizer        = "tenant.liqo.io/finalizer"
	KubeconfigSecretPrefix = "kubeconfig-"
	KubeconfigField        = "kubeconfig"
	ControlPlaneIdentity   = "controlplane-"

	RemoteControlPlaneClusterRole   = "liqo-remote-controlplane"
	RemoteClusterWideClusterRole    = "liqo-virtual-kubelet-remote-clusterwide"
	RemoteControlPlaneRoleSelector  = "app.kubernetes.io/name=remote-controlplane"
	RemoteClusterWideRoleSelector   = "app.kubernetes.io/name=virtual-kubelet-remote-clusterwide"
	ClusterRoleBindingPrefix        = "liqo-binding-"
	KubeAPIServerClientSignerName   = "kubernetes.io/kube-apiserver-client"
	LiqoOrganization                = "liqo.io"
	ManagedByLabel                  = "app.kubernetes.io/managed-by"
	ManagedByValue                  = "liqo-auth-tui"
	PartOfLabel                     = "app.kubernetes.io/part-of"
	PartOfValue                     = "liqo"
	LiqoForeignClusterCRDName       = "foreignclusters.core.liqo.io"
	ControllerLeaseName             = "liqo-auth-controller"
	TenantNamespacePodSecurityLevel = "privileged"
)

// TenantNamespaceName is the default name of the tenant namespace for a
// remote cluster (liqo-tenant-<remoteID>, never hashed or truncated).
func TenantNamespaceName(remoteClusterID string) string {
	return TenantNamespacePrefix + remoteClusterID
}

// ControlPlaneIdentityName is the name of the consumer's Identity for a provider.
func ControlPlaneIdentityName(providerID string) string {
	return ControlPlaneIdentity + providerID
}

// KubeconfigSecretName is the name of the Secret built from an Identity.
func KubeconfigSecretName(identityName string) string {
	return KubeconfigSecretPrefix + identityName
}

// TenantNamespaceLabels are the labels Liqo puts on a tenant namespace.
func TenantNamespaceLabels(remoteClusterID string) map[string]string {
	return map[string]string{
		RemoteClusterIDLabel:                 remoteClusterID,
		TenantNamespaceLabel:                 "true",
		"pod-security.kubernetes.io/audit":   TenantNamespacePodSecurityLevel,
		"pod-security.kubernetes.io/enforce": TenantNamespacePodSecurityLevel,
		"pod-security.kubernetes.io/warn":    TenantNamespacePodSecurityLevel,
	}
}

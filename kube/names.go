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

	// The keys Liqo's Identity controller adds to the kubeconfig Secret of an
	// EKS (IAM) Identity, from its authParams.awsConfig: Liqo's components on
	// the consumer take the Secret for an AWS one only when all five are there,
	// and then authenticate with an IAM token made from them.
	AWSAccessKeyIDField     = "awsAccessKeyID"
	AWSSecretAccessKeyField = "awsSecretAccessKey"
	AWSRegionField          = "awsRegion"
	AWSEKSClusterIDField    = "awsEksClusterID" // awsConfig.awsClusterName
	AWSIAMUserArnField      = "awsIamUserArn"

	RemoteControlPlaneClusterRole  = "liqo-remote-controlplane"
	RemoteClusterWideClusterRole   = "liqo-virtual-kubelet-remote-clusterwide"
	RemoteControlPlaneRoleSelector = "app.kubernetes.io/name=remote-controlplane"
	RemoteClusterWideRoleSelector  = "app.kubernetes.io/name=virtual-kubelet-remote-clusterwide"
	ClusterRoleBindingPrefix       = "liqo-binding-"
	KubeAPIServerClientSignerName  = "kubernetes.io/kube-apiserver-client"
	LiqoOrganization               = "liqo.io"
	ManagedByLabel                 = "app.kubernetes.io/managed-by"
	ManagedByValue                 = "liqo-auth-tui"
	PartOfLabel                    = "app.kubernetes.io/part-of"
	PartOfValue                    = "liqo"
	LiqoForeignClusterCRDName      = "foreignclusters.core.liqo.io"
	ControllerLeaseName            = "liqo-auth-controller"
	// InProcessLeasePrefix + a role ("provider", "consumer") is the Lease
	// in-process runs of that role hold (the wizard's, a command's): the
	// in-cluster controller starts its workers only once they handed over.
	InProcessLeasePrefix            = "liqo-auth-inprocess-"
	TenantNamespacePodSecurityLevel = "privileged"
	// LiqoControllerDeployment is Liqo v1's controller-manager: its flags
	// say what a provider advertises (§6.4), its pods make the key pair.
	LiqoControllerDeployment = "liqo-controller-manager"
)

// The peering user (§9.4): a restricted human user of the provider, made by
// `liqoctl generate peering-user` / `liqo-auth-tui generate peering-user`,
// whose kubeconfig the consumer's admin runs the handshake with. Its names
// and labels are Liqo's: `liqoctl delete peering-user` finds what we made.
const (
	PeeringUserPrefix = "liqo-peer-user-"
	// PeeringUserNameLabel (value liqo-peer-user-<consumerID>) is on the
	// CSR object and on both RoleBindings.
	PeeringUserNameLabel = "liqo.io/peering-user-name"
	// PeeringUserRoleSelector finds the peering-user ClusterRole and the
	// Role in the Liqo namespace, as Liqo does (never by name).
	PeeringUserRoleSelector         = "app.kubernetes.io/component=peering-user"
	PeeringUserTenantNSClusterRole  = "liqo-peering-user-tenant-ns"
	PeeringUserLiqoNSRole           = "liqo-peering-user-liqo-ns"
	PeeringUserKubeconfigContext    = "default-context"
	PeeringUserApprovalReason       = IdentityApprovalReason
	PeeringUserApprovalMessage      = "This CSR was approved by liqo-auth-tui generate peering-user"
	peeringUserTenantBindingSuffix  = "-tenant-ns-writer"
	peeringUserLiqoNSBindingSuffix  = "-liqo-ns-reader"
	peeringUserKubeconfigUserSuffix = "-user"
)

// PeeringUserName is the name of the peering user of a consumer
// (liqo-peer-user-<consumerID>): its CSR object and its label value. The
// certificate's CN adds a random suffix (liqo-peer-user-<id>-<32 hex>).
func PeeringUserName(consumerID string) string { return PeeringUserPrefix + consumerID }

// PeeringUserTenantBindingName is the RoleBinding, in the consumer's tenant
// namespace, of the ClusterRole liqo-peering-user-tenant-ns.
func PeeringUserTenantBindingName(consumerID string) string {
	return PeeringUserName(consumerID) + peeringUserTenantBindingSuffix
}

// PeeringUserLiqoNSBindingName is the RoleBinding, in the Liqo namespace, of
// the Role liqo-peering-user-liqo-ns.
func PeeringUserLiqoNSBindingName(consumerID string) string {
	return PeeringUserName(consumerID) + peeringUserLiqoNSBindingSuffix
}

// PeeringUserKubeconfigUser is the user entry of the peering user's
// kubeconfig (<consumerID>-user); its cluster entry is named <consumerID>.
func PeeringUserKubeconfigUser(consumerID string) string {
	return consumerID + peeringUserKubeconfigUserSuffix
}

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

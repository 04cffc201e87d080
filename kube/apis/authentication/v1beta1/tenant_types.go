package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AuthzPolicy is the policy used by the provider to authorize or reject an
// incoming ResourceSlice.
type AuthzPolicy string

const (
	// KeysExchange requires the consumer to have completed the keys exchange
	// (the ResourceSlice CSR key must equal the Tenant public key).
	KeysExchange AuthzPolicy = "KeysExchange"
	// TolerateNoHandshake accepts ResourceSlices without a keys exchange.
	TolerateNoHandshake AuthzPolicy = "TolerateNoHandshake"
)

// TenantCondition is the condition of a Tenant, set by the provider admin.
type TenantCondition string

const (
	// TenantConditionActive means the consumer can use existing resources and
	// negotiate new ones.
	TenantConditionActive TenantCondition = "Active"
	// TenantConditionCordoned means existing resources are kept but no new
	// ones can be negotiated.
	TenantConditionCordoned TenantCondition = "Cordoned"
	// TenantConditionDrained means the consumer can neither use nor negotiate
	// resources.
	TenantConditionDrained TenantCondition = "Drained"
)

// TenantSpec defines the desired state of Tenant.
type TenantSpec struct {
	// ClusterID is the id of the consumer cluster.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="ClusterID is immutable"
	ClusterID string `json:"clusterID,omitempty"`
	// AuthzPolicy is the policy used by the cluster to authorize or reject an incoming ResourceSlice.
	// Default is KeysExchange.
	// +kubebuilder:validation:Enum=KeysExchange;TolerateNoHandshake
	// +kubebuilder:default=KeysExchange
	AuthzPolicy AuthzPolicy `json:"authzPolicy,omitempty"`
	// PublicKey is the public key of the tenant cluster.
	PublicKey []byte `json:"publicKey,omitempty"`
	// CSR is the Certificate Signing Request of the tenant cluster.
	CSR []byte `json:"csr,omitempty"`
	// Signature contains the nonce signed by the tenant cluster.
	Signature []byte `json:"signature,omitempty"`
	// ProxyURL is the URL of the proxy used by the tenant cluster to connect to the local cluster (optional).
	ProxyURL string `json:"proxyURL,omitempty"`
	// TenantCondition contains the conditions of the tenant.
	// +kubebuilder:validation:Enum=Active;Cordoned;Drained
	// +kubebuilder:default=Active
	TenantCondition TenantCondition `json:"tenantCondition,omitempty"`
}

// TenantStatus defines the observed state of Tenant.
type TenantStatus struct {
	// AuthParams contains the authentication parameters for the consumer cluster.
	AuthParams *AuthParams `json:"authParams,omitempty"`
	// TenantNamespace is the namespace of the tenant cluster.
	TenantNamespace string `json:"tenantNamespace,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=liqo,shortName=tn
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Condition",type=string,JSONPath=`.spec.tenantCondition`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Tenant represents a consumer cluster.
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec,omitempty"`
	Status TenantStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TenantList contains a list of Tenant.
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}

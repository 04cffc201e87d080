package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RenewSpec defines the desired state of Renew.
type RenewSpec struct {
	// ConsumerClusterID is the id of the consumer cluster.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ConsumerClusterID string `json:"consumerClusterID,omitempty"`
	// PublicKey is the public key of the tenant cluster.
	PublicKey []byte `json:"publicKey,omitempty"`
	// CSR is the Certificate Signing Request of the tenant cluster.
	CSR []byte `json:"csr,omitempty"`
	// IdentityType is the type of the identity.
	IdentityType IdentityType `json:"identityType,omitempty"`
	// ResourceSliceRef is the reference to the resource slice.
	ResourceSliceRef *corev1.LocalObjectReference `json:"resourceSliceRef,omitempty"`
}

// RenewStatus defines the observed state of Renew.
type RenewStatus struct {
	// AuthParams contains the authentication parameters for the consumer cluster.
	AuthParams *AuthParams `json:"authParams,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=liqo
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Renew carries the renewed authentication parameters of an Identity: the
// consumer creates it and the provider fills its status.
type Renew struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RenewSpec   `json:"spec,omitempty"`
	Status RenewStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RenewList contains a list of Renew.
type RenewList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Renew `json:"items"`
}

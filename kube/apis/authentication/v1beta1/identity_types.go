package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IdentityType is the type of an Identity.
type IdentityType string

const (
	// ControlPlaneIdentityType is the Identity used by the consumer control
	// plane (one per provider).
	ControlPlaneIdentityType IdentityType = "ControlPlane"
	// ResourceSliceIdentityType is the Identity of one accepted ResourceSlice,
	// used by the virtual kubelet.
	ResourceSliceIdentityType IdentityType = "ResourceSlice"
)

// IdentitySpec defines the desired state of Identity.
type IdentitySpec struct {
	// ClusterID is the identity of the provider cluster.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ClusterID string `json:"clusterID,omitempty"`
	// Type is the type of the identity.
	// +kubebuilder:validation:Enum=ControlPlane;ResourceSlice
	Type IdentityType `json:"type,omitempty"`
	// AuthParams contains the parameters to create an Identity to use in the provider cluster.
	AuthParams AuthParams `json:"authParams,omitempty"`
	// Namespace is the namespace where to use the identity.
	Namespace string `json:"namespace,omitempty"`
}

// IdentityStatus defines the observed state of Identity.
type IdentityStatus struct {
	// KubeconfigSecretRef contains the reference to the secret containing the kubeconfig to access the provider cluster.
	KubeconfigSecretRef *corev1.LocalObjectReference `json:"kubeconfigSecretRef,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=liqo,shortName=id
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="KubeconfigSecret",type=string,JSONPath=`.status.kubeconfigSecretRef.name`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Identity contains the information to operate in a remote cluster.
type Identity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   IdentitySpec   `json:"spec,omitempty"`
	Status IdentityStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// IdentityList contains a list of Identity.
type IdentityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Identity `json:"items"`
}

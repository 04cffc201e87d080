package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ResourceSliceClass is the class of a ResourceSlice.
type ResourceSliceClass string

// ResourceSliceClassDefault is the class handled by Liqo itself (an empty
// class is handled the same way).
const ResourceSliceClassDefault ResourceSliceClass = "default"

// ResourceSliceConditionType is the type of a ResourceSlice condition.
type ResourceSliceConditionType string

const (
	// ResourceSliceConditionTypeAuthentication reports whether the provider
	// signed the ResourceSlice CSR.
	ResourceSliceConditionTypeAuthentication ResourceSliceConditionType = "Authentication"
	// ResourceSliceConditionTypeResources reports whether the provider granted
	// the requested resources.
	ResourceSliceConditionTypeResources ResourceSliceConditionType = "Resources"
)

// ResourceSliceConditionStatus is the status of a ResourceSlice condition.
type ResourceSliceConditionStatus string

const (
	// ResourceSliceConditionAccepted means the condition was accepted.
	ResourceSliceConditionAccepted ResourceSliceConditionStatus = "Accepted"
	// ResourceSliceConditionDenied means the condition was denied.
	ResourceSliceConditionDenied ResourceSliceConditionStatus = "Denied"
)

// ResourceSliceSpec defines the desired state of ResourceSlice.
type ResourceSliceSpec struct {
	// ConsumerClusterID is the id of the consumer cluster.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ConsumerClusterID string `json:"consumerClusterID,omitempty"`
	// ProviderClusterID is the id of the provider cluster.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ProviderClusterID string `json:"providerClusterID,omitempty"`
	// Resources contains the slice of resources requested.
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// Class contains the class of the ResourceSlice.
	Class ResourceSliceClass `json:"class,omitempty"`
	// CSR is the Certificate Signing Request of the consumer cluster.
	CSR []byte `json:"csr,omitempty"`
}

// ResourceSliceCondition contains details about the status of the provided ResourceSlice.
type ResourceSliceCondition struct {
	// Type of the condition.
	// +kubebuilder:validation:Enum=Authentication;Resources
	Type ResourceSliceConditionType `json:"type"`
	// Status of the condition.
	// +kubebuilder:validation:Enum=Accepted;Denied
	Status ResourceSliceConditionStatus `json:"status"`
	// LastTransitionTime -> timestamp for when the condition last transitioned from one status to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// Reason -> Machine-readable, UpperCamelCase text indicating the reason for the condition's last transition.
	Reason string `json:"reason,omitempty"`
	// Message -> Human-readable message indicating details about the last status transition.
	Message string `json:"message,omitempty"`
}

// StorageType defines the type of storage offered by a resource offer.
type StorageType struct {
	// StorageClassName indicates the name of the storage class.
	StorageClassName string `json:"storageClassName"`
	// Default indicates whether this storage class is the default storage class for Liqo.
	Default bool `json:"default,omitempty"`
}

// IngressType defines the type of ingress offered by a resource offer.
type IngressType struct {
	// IngressClassName indicates the name of the ingress class.
	IngressClassName string `json:"ingressClassName"`
	// Default indicates whether this ingress class is the default ingress class for Liqo.
	Default bool `json:"default,omitempty"`
}

// LoadBalancerType defines the type of load balancer offered by a resource offer.
type LoadBalancerType struct {
	// LoadBalancerClassName indicates the name of the load balancer class.
	LoadBalancerClassName string `json:"loadBalancerClassName"`
	// Default indicates whether this load balancer class is the default load balancer class for Liqo.
	Default bool `json:"default,omitempty"`
}

// ResourceSliceStatus defines the observed state of ResourceSlice.
type ResourceSliceStatus struct {
	// Conditions contains the conditions of the ResourceSlice.
	Conditions []ResourceSliceCondition `json:"conditions,omitempty"`
	// AuthParams contains the authentication parameters for the resources given by the provider cluster.
	AuthParams *AuthParams `json:"authParams,omitempty"`
	// Resources contains the slice of resources accepted.
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// StorageClasses contains the list of the storage classes offered by the cluster.
	StorageClasses []StorageType `json:"storageClasses,omitempty"`
	// IngressClasses contains the list of the ingress classes offered by the cluster.
	IngressClasses []IngressType `json:"ingressClasses,omitempty"`
	// LoadBalancerClasses contains the list of the load balancer classes offered by the cluster.
	LoadBalancerClasses []LoadBalancerType `json:"loadBalancerClasses,omitempty"`
	// NodeLabels contains the provider cluster labels.
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`
	// NodeSelector contains the selector to be applied to offloaded pods.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=liqo,shortName=rslice
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Authentication",type=string,JSONPath=`.status.conditions[?(@.type=="Authentication")].status`
// +kubebuilder:printcolumn:name="Resources",type=string,JSONPath=`.status.conditions[?(@.type=="Resources")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ResourceSlice represents a slice of resources given by the provider cluster to the consumer cluster.
type ResourceSlice struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ResourceSliceSpec   `json:"spec,omitempty"`
	Status ResourceSliceStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ResourceSliceList contains a list of ResourceSlice.
type ResourceSliceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceSlice `json:"items"`
}

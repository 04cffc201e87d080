// Package v1beta1 contains the Go types of the authentication.liqo.io/v1beta1
// API group (Tenant, Identity, ResourceSlice, Renew). The types are wire- and
// schema-compatible with Liqo v1.x: the CRDs generated from them by
// controller-gen (hack/generate.sh, assets/deploy/crds) accept exactly the objects
// Liqo's own CRDs accept.
//
// +kubebuilder:object:generate=true
// +groupName=authentication.liqo.io
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the name of the API group.
const GroupName = "authentication.liqo.io"

// Version is the API version.
const Version = "v1beta1"

var (
	// GroupVersion is the group version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: Version}

	// SchemeGroupVersion is an alias of GroupVersion, following the
	// Kubernetes code-generator convention.
	SchemeGroupVersion = GroupVersion

	// SchemeBuilder collects the functions that add the types of this group
	// version to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types of this group version to the given scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource takes an unqualified resource name (e.g. "tenants") and returns
// the corresponding group-qualified GroupResource.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

// Kinds, resources and GroupVersionResources of the types of this package.
const (
	TenantKind        = "Tenant"
	IdentityKind      = "Identity"
	ResourceSliceKind = "ResourceSlice"
	RenewKind         = "Renew"

	TenantResource        = "tenants"
	IdentityResource      = "identities"
	ResourceSliceResource = "resourceslices"
	RenewResource         = "renews"
)

var (
	// TenantGroupVersionResource is the GVR of Tenants.
	TenantGroupVersionResource = GroupVersion.WithResource(TenantResource)
	// IdentityGroupVersionResource is the GVR of Identities.
	IdentityGroupVersionResource = GroupVersion.WithResource(IdentityResource)
	// ResourceSliceGroupVersionResource is the GVR of ResourceSlices.
	ResourceSliceGroupVersionResource = GroupVersion.WithResource(ResourceSliceResource)
	// RenewGroupVersionResource is the GVR of Renews.
	RenewGroupVersionResource = GroupVersion.WithResource(RenewResource)
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&Tenant{}, &TenantList{},
		&Identity{}, &IdentityList{},
		&ResourceSlice{}, &ResourceSliceList{},
		&Renew{}, &RenewList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}

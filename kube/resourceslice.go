package kube

import (
	"k8s.io/client-go/gentype"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ResourceSliceClient is a typed client of ResourceSlices in one namespace.
type ResourceSliceClient = gentype.ClientWithList[*authv1beta1.ResourceSlice, *authv1beta1.ResourceSliceList]

// ResourceSlices returns a client of the ResourceSlices in namespace ("" = all).
func (c *LiqoClient) ResourceSlices(namespace string) *ResourceSliceClient {
	return gentype.NewClientWithList(authv1beta1.ResourceSliceResource, c.rest, c.codec, namespace,
		func() *authv1beta1.ResourceSlice { return &authv1beta1.ResourceSlice{} },
		func() *authv1beta1.ResourceSliceList { return &authv1beta1.ResourceSliceList{} })
}

package main

import (
	liqov1beta1 "github.com/liqotech/liqo/apis/core/v1beta1"
	identitymanager "github.com/liqotech/liqo/pkg/identityManager"
	liqocontrollermanager "github.com/liqotech/liqo/pkg/liqo-controller-manager"
	remoteresourceslicecontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/remoteresourceslice-controller"
	tenantnamespace "github.com/liqotech/liqo/pkg/tenantNamespace"
)

// authOptions is what liqo-controller-manager builds its authentication
// reconcilers with (its modules.AuthOption), filled from the same flags.
// Liqo's modules package is not linked: it brings every module of
// liqo-controller-manager (networking, offloading, ...), about 60 more Liqo
// packages and 190 others, which every release's build would compile.
type authOptions struct {
	identityProvider   identitymanager.IdentityProvider
	namespaceManager   tenantnamespace.Manager
	localClusterID     liqov1beta1.ClusterID
	liqoNamespace      string
	apiServerOverride  string
	caOverrideB64      string
	trustedCA          bool
	tlsCompatibility   bool
	sliceStatusOptions *remoteresourceslicecontroller.SliceStatusOptions
}

// newAuthOptions maps liqo-controller-manager's flags to authOptions as
// modules.NewAuthOption does (the same in v1.0.x, v1.1.x and v1.2.0).
func newAuthOptions(idProvider identitymanager.IdentityProvider, namespaceManager tenantnamespace.Manager,
	clusterID liqov1beta1.ClusterID, o *liqocontrollermanager.Options) *authOptions {
	return &authOptions{
		identityProvider:  idProvider,
		namespaceManager:  namespaceManager,
		localClusterID:    clusterID,
		liqoNamespace:     o.LiqoNamespace,
		apiServerOverride: o.APIServerAddressOverride,
		caOverrideB64:     o.CAOverride,
		trustedCA:         o.TrustedCA,
		tlsCompatibility:  o.TLSCompatibilityMode,
		sliceStatusOptions: &remoteresourceslicecontroller.SliceStatusOptions{
			EnableStorage:             o.EnableStorage,
			LocalRealStorageClassName: o.RealStorageClassName,
			IngressClasses:            o.IngressClasses,
			LoadBalancerClasses:       o.LoadBalancerClasses,
			ClusterLabels:             o.ClusterLabels.StringMap,
			DefaultResourceQuantity:   o.DefaultNodeResources.ToResourceList(),
		},
	}
}

package main

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/liqotech/liqo/cmd/liqo-controller-manager/modules"
	identitycontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/identity-controller"
	identitycreatorcontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/identitycreator-controller"
	localresourceslicecontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/localresourceslice-controller"
	noncecreatorcontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/noncecreator-controller"
	noncesigner "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/noncesigner-controller"
	remoteresourceslicecontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/remoteresourceslice-controller"
	tenantcontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/tenant-controller"
)

// setupable is what every Liqo reconciler offers.
type setupable interface {
	SetupWithManager(mgr manager.Manager) error
}

// named pairs a reconciler with the name its setup errors carry.
type named struct {
	name string
	r    setupable
}

// setupAll sets the reconcilers up in modules.SetupAuthenticationModule's order.
func setupAll(mgr manager.Manager, reconcilers ...named) error {
	for _, n := range reconcilers {
		if err := n.r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("unable to setup the %s reconciler: %w", n.name, err)
		}
	}
	return nil
}

// setupProvider wires the reconcilers of the cluster that grants access: the
// same constructors and arguments as modules.SetupAuthenticationModule.
func setupProvider(mgr manager.Manager, opts *modules.AuthOption, caOverride []byte) error {
	return setupAll(mgr,
		named{"nonce creator", noncecreatorcontroller.NewNonceReconciler(
			mgr.GetClient(), mgr.GetScheme(),
			opts.NamespaceManager,
			mgr.GetEventRecorderFor("nonce-controller"))},
		named{"tenant", tenantcontroller.NewTenantReconciler(mgr.GetClient(), mgr.GetScheme(), mgr.GetConfig(),
			mgr.GetEventRecorderFor("tenant-controller"),
			opts.IdentityProvider, opts.NamespaceManager,
			opts.APIServerAddressOverride, caOverride, opts.TrustedCA)},
		named{"remote resource slice", remoteresourceslicecontroller.NewRemoteResourceSliceReconciler(mgr.GetClient(),
			mgr.GetScheme(), mgr.GetConfig(), mgr.GetEventRecorderFor("remoteresourceslice-controller"),
			opts.IdentityProvider, opts.NamespaceManager,
			opts.APIServerAddressOverride, caOverride, opts.TrustedCA,
			opts.SliceStatusOptions)},
		remoteRenewer(mgr, opts, caOverride),
	)
}

// setupConsumer wires the reconcilers of the cluster that asks for access.
func setupConsumer(mgr manager.Manager, opts *modules.AuthOption) error {
	return setupAll(mgr,
		named{"nonce signer", noncesigner.NewNonceSignerReconciler(mgr.GetClient(), mgr.GetScheme(),
			mgr.GetEventRecorderFor("signed-nonce-controller"),
			opts.NamespaceManager, opts.LiqoNamespace)},
		named{"identity", identitycontroller.NewIdentityReconciler(mgr.GetClient(), mgr.GetScheme(),
			mgr.GetEventRecorderFor("identity-controller"), opts.LiqoNamespace)},
		named{"local resource slice", localresourceslicecontroller.NewLocalResourceSliceReconciler(mgr.GetClient(),
			mgr.GetScheme(), mgr.GetEventRecorderFor("localresourceslice-controller"),
			opts.LiqoNamespace, opts.LocalClusterID)},
		named{"identity creator", identitycreatorcontroller.NewIdentityCreatorReconciler(
			mgr.GetClient(), mgr.GetScheme(), mgr.GetEventRecorderFor("identitycreator-controller"),
			opts.LiqoNamespace, opts.LocalClusterID)},
		localRenewer(mgr, opts),
	)
}

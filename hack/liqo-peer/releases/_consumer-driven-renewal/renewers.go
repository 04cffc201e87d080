package main

import (
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/liqotech/liqo/cmd/liqo-controller-manager/modules"
	localrenewercontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/localrenwer-controller"
	remoterenewercontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/remoterenwer-controller"
)

// The renewers of Liqo v1.0.x and v1.1.x (consumer-driven renewal: the
// consumer asks with a Renew carrying a new CSR, the provider signs it).
// hack/install-liqo-peer.sh puts this file in place of ../../renewers.go
// (v1.2.0's) when it builds those releases; the leading "_" of this folder
// keeps it out of the v1.2.0 module in ../.. .

// remoteRenewer is the provider's Renew reconciler, as
// modules.SetupAuthenticationModule constructs it.
func remoteRenewer(mgr manager.Manager, opts *modules.AuthOption, caOverride []byte) named {
	return named{"remote renewer", remoterenewercontroller.NewRemoteRenewerReconciler(mgr.GetClient(), mgr.GetScheme(),
		opts.IdentityProvider, opts.NamespaceManager,
		opts.APIServerAddressOverride, caOverride, opts.TrustedCA,
		mgr.GetEventRecorderFor("remote-renewer-controller"))}
}

// localRenewer is the consumer's Renew reconciler, as
// modules.SetupAuthenticationModule constructs it.
func localRenewer(mgr manager.Manager, opts *modules.AuthOption) named {
	return named{"local renewer", localrenewercontroller.NewLocalRenewerReconciler(mgr.GetClient(), mgr.GetScheme(),
		opts.LiqoNamespace, opts.LocalClusterID,
		mgr.GetEventRecorderFor("local-renewer-controller"))}
}

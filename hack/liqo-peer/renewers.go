package main

import (
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/liqotech/liqo/cmd/liqo-controller-manager/modules"
	localrenewercontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/localrenewer-controller"
	remoterenewercontroller "github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication/remoterenwer-controller"
)

// The renewers of Liqo v1.2.0+ (provider-driven renewal: the provider
// renews by itself and the Renew only carries the new certificate back).
// Liqo v1.0.x and v1.1.x wire them with other arguments (consumer-driven
// renewal): releases/_consumer-driven-renewal/renewers.go replaces this file
// in their builds (hack/install-liqo-peer.sh).

// remoteRenewer is the provider's Renew reconciler, as
// modules.SetupAuthenticationModule constructs it.
func remoteRenewer(mgr manager.Manager, opts *modules.AuthOption, _ []byte) named {
	return named{"remote renewer", remoterenewercontroller.NewRemoteRenewerReconciler(mgr.GetClient(), mgr.GetScheme(),
		opts.NamespaceManager,
		mgr.GetEventRecorderFor("remote-renewer-controller"))}
}

// localRenewer is the consumer's Renew reconciler, as
// modules.SetupAuthenticationModule constructs it.
func localRenewer(mgr manager.Manager, opts *modules.AuthOption) named {
	return named{"local renewer", localrenewercontroller.NewLocalRenewerReconciler(mgr.GetClient(), mgr.GetScheme(),
		opts.LocalClusterID,
		mgr.GetEventRecorderFor("local-renewer-controller"))}
}

// Command liqo-peer runs REAL Liqo v1 authentication reconcilers against
// one cluster, wired as liqo-controller-manager wires them
// (cmd/liqo-controller-manager/main.go and modules/authentication.go), so that
// this project's tests can check interoperability with Liqo itself.
//
// It only builds in its own module (Liqo pins older Kubernetes libraries than
// the main module): go.mod here builds it from Liqo v1.2.0, and
// hack/install-liqo-peer.sh builds the same sources from the other releases
// with releases/<release>/go.mod (renewers.go is the only file that
// differs).
//
// The flags are liqo-controller-manager's own (same defaults), plus
// --kubeconfig (without it, the in-cluster config of its Pod) and the
// --provider/--consumer toggles; metrics and health
// probes are off unless asked for, so that several peers can run side by
// side. Once the manager's caches synced it prints "ready" on stdout;
// everything else (klog) goes to stderr.
package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	authv1beta1 "github.com/liqotech/liqo/apis/authentication/v1beta1"
	liqov1beta1 "github.com/liqotech/liqo/apis/core/v1beta1"
	ipamv1alpha1 "github.com/liqotech/liqo/apis/ipam/v1alpha1"
	networkingv1beta1 "github.com/liqotech/liqo/apis/networking/v1beta1"
	offloadingv1beta1 "github.com/liqotech/liqo/apis/offloading/v1beta1"
	identitymanager "github.com/liqotech/liqo/pkg/identityManager"
	liqocontrollermanager "github.com/liqotech/liqo/pkg/liqo-controller-manager"
	"github.com/liqotech/liqo/pkg/liqo-controller-manager/authentication"
	tenantnamespace "github.com/liqotech/liqo/pkg/tenantNamespace"
	flagsutils "github.com/liqotech/liqo/pkg/utils/flags"
	"github.com/liqotech/liqo/pkg/utils/mapper"
	"github.com/liqotech/liqo/pkg/utils/resource"
	"github.com/liqotech/liqo/pkg/utils/restcfg"
)

// readyLine is what the test harness waits for on stdout.
const readyLine = "ready"

var scheme = runtime.NewScheme()

func init() {
	// The same groups as liqo-controller-manager, less the Prometheus operator's.
	_ = clientgoscheme.AddToScheme(scheme)
	_ = liqov1beta1.AddToScheme(scheme)
	_ = offloadingv1beta1.AddToScheme(scheme)
	_ = ipamv1alpha1.AddToScheme(scheme)
	_ = networkingv1beta1.AddToScheme(scheme)
	_ = authv1beta1.AddToScheme(scheme)
}

// peerFlags are the flags liqo-controller-manager does not have.
type peerFlags struct {
	kubeconfig string
	provider   bool
	consumer   bool
}

func main() {
	fs := pflag.CommandLine
	opts := liqocontrollermanager.NewOptions()
	liqocontrollermanager.InitFlags(fs, opts)
	flagsutils.InitKlogFlags(fs)
	restcfg.InitFlags(fs)
	var pf peerFlags
	fs.StringVar(&pf.kubeconfig, "kubeconfig", "",
		"Path to the kubeconfig of the cluster to run against; empty: the in-cluster config of the Pod it runs in")
	fs.BoolVar(&pf.provider, "provider", true, "Run the provider-side reconcilers (nonce creator, Tenant, remote ResourceSlice, remote Renew)")
	fs.BoolVar(&pf.consumer, "consumer", true,
		"Run the consumer-side reconcilers (nonce signer, Identity, local ResourceSlice, identity creator, local Renew)")
	pflag.Parse()

	// Several peers run side by side in the tests: no fixed ports unless asked for.
	if !fs.Changed("metrics-address") {
		opts.MetricsAddr = "0"
	}
	if !fs.Changed("health-probe-address") {
		opts.ProbeAddr = "0"
	}

	if err := run(ctrl.SetupSignalHandler(), opts, &pf); err != nil {
		klog.Error(err)
		os.Exit(1)
	}
}

func run(ctx context.Context, opts *liqocontrollermanager.Options, pf *peerFlags) error {
	log.SetLogger(klog.NewKlogr())
	if !pf.provider && !pf.consumer {
		return fmt.Errorf("nothing to run: at least one of --provider and --consumer must be true")
	}
	clusterID, err := opts.ClusterIDFlags.Read()
	if err != nil {
		return err
	}

	config, err := restConfig(pf.kubeconfig)
	if err != nil {
		return err
	}
	config = restcfg.SetRateLimiter(config)
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	uncachedClient, err := client.New(config, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("unable to create uncached client: %w", err)
	}

	resource.SetGlobalLabels(opts.GlobalLabels.StringMap)
	resource.SetGlobalAnnotations(opts.GlobalAnnotations.StringMap)

	mgr, err := ctrl.NewManager(config, ctrl.Options{
		MapperProvider:          mapper.LiqoMapperProvider(scheme),
		Scheme:                  scheme,
		Metrics:                 server.Options{BindAddress: opts.MetricsAddr},
		HealthProbeBindAddress:  opts.ProbeAddr,
		LeaderElection:          opts.LeaderElection,
		LeaderElectionID:        "66cf253f.ctrlmgr.liqo.io",
		LeaderElectionNamespace: opts.LiqoNamespace,
	})
	if err != nil {
		return fmt.Errorf("manager creation failed: %w", err)
	}

	namespaceManager := tenantnamespace.NewCachedManager(ctx, clientset, scheme)
	idProvider := identitymanager.NewCertificateIdentityProvider(ctx, mgr.GetClient(), clientset, config, clusterID, namespaceManager)
	authOpts := newAuthOptions(idProvider, namespaceManager, clusterID, opts)
	if err := setupAuthentication(ctx, mgr, uncachedClient, authOpts, pf); err != nil {
		return fmt.Errorf("unable to setup the authentication module: %w", err)
	}

	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { return announceReady(ctx, mgr) })); err != nil {
		return err
	}

	klog.Infof("starting Liqo authentication reconcilers for cluster %q (provider=%t, consumer=%t)",
		clusterID, pf.provider, pf.consumer)
	return mgr.Start(ctx)
}

// restConfig loads --kubeconfig, or without one the ServiceAccount's
// in-cluster config, as liqo-controller-manager runs in its Pod.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		config, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("no --kubeconfig and not in a Pod: %w", err)
		}
		return config, nil
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading --kubeconfig: %w", err)
	}
	return config, nil
}

// setupAuthentication does what liqo-controller-manager's
// modules.SetupAuthenticationModule does, with the provider-side and
// consumer-side reconcilers behind their toggles: the cluster keys, then the
// same reconcilers built with the same arguments.
func setupAuthentication(ctx context.Context, mgr manager.Manager, uncachedClient client.Client,
	opts *authOptions, pf *peerFlags) error {
	var caOverride []byte
	if opts.caOverrideB64 != "" {
		var err error
		if caOverride, err = base64.StdEncoding.DecodeString(opts.caOverrideB64); err != nil {
			return fmt.Errorf("unable to decode the CA override: %w", err)
		}
	}
	if err := authentication.InitClusterKeys(ctx, uncachedClient, opts.liqoNamespace, opts.tlsCompatibility); err != nil {
		return fmt.Errorf("unable to enforce authentication keys: %w", err)
	}
	if pf.provider {
		if err := setupProvider(mgr, opts, caOverride); err != nil {
			return err
		}
	}
	if pf.consumer {
		if err := setupConsumer(mgr, opts); err != nil {
			return err
		}
	}
	return nil
}

// watchedKinds are the kinds the authentication reconcilers watch (their
// For, Owns and Watches).
var watchedKinds = []client.Object{
	&corev1.Secret{}, &corev1.Namespace{},
	&authv1beta1.Tenant{}, &authv1beta1.Identity{}, &authv1beta1.ResourceSlice{}, &authv1beta1.Renew{},
}

// announceReady prints the ready line once the shared informers of every
// watched kind synced: a controller that starts a moment later still gets
// every object from them, so nothing written after "ready" is missed.
func announceReady(ctx context.Context, mgr manager.Manager) error {
	for _, obj := range watchedKinds {
		// GetInformer blocks until the informer synced.
		if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
			return fmt.Errorf("waiting for the %T informer: %w", obj, err)
		}
	}
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("caches did not sync")
	}
	fmt.Println(readyLine)
	return nil
}

package flows

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Where the address a consumer gets comes from, and what it is told.
type (
	AdvertiseSource = handshake.AdvertiseSource
	Advertisement   = handshake.Advertisement
)

const (
	AdvertiseOverride   = handshake.AdvertiseOverride
	AdvertiseNode       = handshake.AdvertiseNode
	AdvertiseKubeconfig = handshake.AdvertiseKubeconfig
	AdvertiseController = handshake.AdvertiseController
)

// ErrLiqoAdvertises refuses an advertise override on a provider served by
// real Liqo: it ignores the Tenant annotations, and a renewal would copy
// its own authParams over an edited Identity.
var ErrLiqoAdvertises = errors.New("the provider is served by Liqo's controller-manager, which decides what it advertises: " +
	"set it on Liqo (" + liqoAdvertiseSettings + ") and run again without --api-server-override, --ca-override-file or --trusted-ca")

// liqoAdvertiseSettings is how Liqo is told what to advertise.
const liqoAdvertiseSettings = "`liqoctl install ... --set apiServer.address=<host:port>`, and --set apiServer.ca=<base64 CA PEM> or --set apiServer.trustedCA=true"

// AdvertisedOrFixed is AdvertisedTo, except on real Liqo, where o's
// overrides cannot apply: there it is what Liqo advertises, Fixed, instead
// of ErrLiqoAdvertises. It is what the provider's admin is shown before the
// Identity is generated.
func AdvertisedOrFixed(ctx context.Context, provider *kube.Cluster, consumerID string, o EngineOptions) (Advertisement, error) {
	a, err := AdvertisedTo(ctx, provider, consumerID, o)
	if errors.Is(err, ErrLiqoAdvertises) {
		return Advertised(ctx, provider, EngineOptions{NoInProcess: o.NoInProcess})
	}
	return a, err
}

// hasOverride tells whether o changes what the provider advertises.
func (o EngineOptions) hasOverride() bool {
	return o.APIServerOverride != "" || len(o.CAOverride) > 0 || o.TrustedCA
}

// Advertised tells, writing nothing, what provider will advertise to a
// consumer with o: the engine that serves it (real Liqo, the in-cluster
// controller and its flags, or in-process controllers) applies Liqo's rules
// (kube.Advertise), and o's overrides win except on real Liqo
// (ErrLiqoAdvertises).
func Advertised(ctx context.Context, provider *kube.Cluster, o EngineOptions) (Advertisement, error) {
	return advertised(ctx, provider, "", o, false)
}

// AdvertisedTo is Advertised for one consumer: what an earlier edit set on
// its Tenant (advertise annotations) holds where o sets nothing, as the
// flows keep it.
func AdvertisedTo(ctx context.Context, provider *kube.Cluster, consumerID string, o EngineOptions) (Advertisement, error) {
	return advertised(ctx, provider, consumerID, o, false)
}

// advertised is the one rule behind Advertised, AdvertisedTo and the
// peering user's kubeconfig. consumerID, when valid, brings its Tenant's
// advertise annotations (not on real Liqo, which ignores them).
// kubeconfigOnly says o only changes a kubeconfig this tool writes, so it
// applies on real Liqo too.
func advertised(ctx context.Context, provider *kube.Cluster, consumerID string, o EngineOptions, kubeconfigOnly bool) (Advertisement, error) {
	engine, err := serving.Detect(ctx, provider)
	if err != nil {
		return Advertisement{}, err
	}
	if engine == "" {
		engine = EngineInProcess
	}
	if engine == EngineLiqo && o.hasOverride() && !kubeconfigOnly {
		return Advertisement{Engine: engine}, ErrLiqoAdvertises
	}
	if engine != EngineLiqo {
		if o, err = withTenantEdit(ctx, provider, consumerID, o); err != nil {
			return Advertisement{}, err
		}
	}
	// In-process controllers follow Liqo's rule as a Pod does (a
	// control-plane Node's address), falling back to the kubeconfig's
	// server where there is no Node.
	opts, fromController := kube.AdvertiseOptions{NodeAddress: true, KubeconfigWithoutNode: true}, false
	if engine != EngineInProcess {
		// A controller in a Pod: its flags, else a Node's address and the
		// service account's CA, which kube-root-ca.crt publishes. Our
		// controller without its Deployment runs outside the cluster
		// (`liqo-auth-controller --kubeconfig`, as in `make demo`), or this
		// kubeconfig may not read it: then the kubeconfig's server is the
		// best guess. Liqo always runs in a Pod.
		deployment := kube.ControllerLeaseName
		if engine == EngineLiqo {
			deployment = kube.LiqoControllerDeployment
		}
		args, inPod := deployedArgs(ctx, provider, deployment)
		opts = advertiseFlags(args)
		fromController = opts.APIServerOverride != ""
		if inPod || engine == EngineLiqo {
			opts.NodeAddress = true
			if len(opts.CAOverride) == 0 && !opts.TrustedCA {
				opts.CAOverride = provider.RootCA(ctx)
			}
		}
	}
	overridden := o.APIServerOverride != ""
	if overridden {
		opts.APIServerOverride = o.APIServerOverride
	}
	if o.TrustedCA {
		opts.TrustedCA, opts.CAOverride = true, nil
	}
	if len(o.CAOverride) > 0 {
		opts.CAOverride = o.CAOverride
	}
	adv, err := provider.Advertise(ctx, opts)
	if err != nil {
		return Advertisement{Engine: engine}, fmt.Errorf("what the provider advertises (%s): %w", engine, err)
	}
	a := Advertisement{APIServer: adv.APIServer, CA: adv.CA, TrustedCA: len(adv.CA) == 0, Engine: engine}
	if engine == EngineLiqo {
		a.Fixed = true
		a.FixedHint = "Liqo's controller-manager serves this provider and decides what it advertises: change it on Liqo (" + liqoAdvertiseSettings + ")."
	}
	switch {
	case overridden:
		a.Source = AdvertiseOverride
	case fromController:
		a.Source = AdvertiseController
	case adv.APIServerSource == kube.AdvertiseFromNode:
		a.Source = AdvertiseNode
	default:
		a.Source = AdvertiseKubeconfig
	}
	if len(a.CA) > 0 {
		if a.CAFingerprint, err = authcrypto.CertificateFingerprint(a.CA); err != nil {
			return a, fmt.Errorf("the CA the provider advertises: %w", err)
		}
	}
	return a, nil
}

// withTenantEdit returns o completed by what an earlier edit set on the
// Tenant of consumerID (advertise annotations), where o sets nothing. An
// invalid consumerID or no Tenant leaves o as it is.
func withTenantEdit(ctx context.Context, provider *kube.Cluster, consumerID string, o EngineOptions) (EngineOptions, error) {
	if authcrypto.ValidateClusterID(consumerID) != nil {
		return o, nil
	}
	t, err := provider.TenantFor(ctx, "", consumerID)
	switch {
	case kube.IsNotFound(err):
		return o, nil
	case err != nil:
		return o, err
	}
	edit, err := kube.AdvertiseOptions{}.WithTenantAnnotations(t.Annotations)
	if err != nil {
		return o, fmt.Errorf("Tenant %s/%s: %w", t.Namespace, t.Name, err)
	}
	if o.APIServerOverride == "" {
		o.APIServerOverride = edit.APIServerOverride
	}
	if len(o.CAOverride) == 0 && !o.TrustedCA {
		o.CAOverride, o.TrustedCA = edit.CAOverride, edit.TrustedCA
	}
	return o, nil
}

// deployedArgs is the command line of a controller Deployment (ours and
// Liqo's share the advertise flags' names, §6.4). found is false for a
// Deployment this kubeconfig may not read, or none.
func deployedArgs(ctx context.Context, c *kube.Cluster, name string) (args []string, found bool) {
	d, err := c.Deployment(ctx, name)
	if err != nil {
		return nil, false
	}
	for _, ctr := range d.Spec.Template.Spec.Containers {
		args = append(append(args, ctr.Command...), ctr.Args...)
	}
	return args, true
}

// advertiseFlags picks --api-server-address-override, --ca-override and
// --trusted-ca out of a command line.
func advertiseFlags(args []string) kube.AdvertiseOptions {
	var o kube.AdvertiseOptions
	eachFlag(args, func(f flagArg) {
		switch f.name {
		case "api-server-address-override":
			o.APIServerOverride = f.next()
		case "ca-override":
			if ca, err := kube.DecodeCAOverride(f.next()); err == nil {
				o.CAOverride = ca
			}
		case "trusted-ca":
			o.TrustedCA = f.boolean()
		}
	})
	return o
}

// flagArg is one --name or --name=value of a controller's command line.
type flagArg struct {
	name, value string
	hasValue    bool
	// next is the value of a flag that takes one: after "=", else the
	// next argument (consumed).
	next func() string
}

// boolean reads a boolean flag as pflag does: bare is true, a value is
// strconv.ParseBool's (the controller refuses to start on anything else).
func (f flagArg) boolean() bool {
	if !f.hasValue {
		return true
	}
	b, _ := strconv.ParseBool(f.value)
	return b
}

// eachFlag calls fn for each flag of args, in order (so the last of a
// repeated flag wins, as with pflag).
func eachFlag(args []string, fn func(flagArg)) {
	for i := 0; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		fn(flagArg{name: name, value: value, hasValue: hasValue, next: func() string {
			if hasValue {
				return value
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}})
	}
}

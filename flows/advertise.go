package flows

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// AdvertiseSource says where the API server a consumer gets comes from.
type AdvertiseSource string

const (
	// AdvertiseOverride: --api-server-override or the wizard's edit, put on
	// the Tenant as annotations.
	AdvertiseOverride AdvertiseSource = "override"
	// AdvertiseNode: a control-plane Node's address (the in-cluster
	// controller's and Liqo's default).
	AdvertiseNode AdvertiseSource = "node"
	// AdvertiseKubeconfig: the provider kubeconfig's server (in-process).
	AdvertiseKubeconfig AdvertiseSource = "kubeconfig"
	// AdvertiseController: the flags of the controller serving the provider.
	AdvertiseController AdvertiseSource = "controller"
)

// Advertisement is what a consumer will be told to reach the provider at:
// authParams.apiServer and authParams.ca (§6.4).
type Advertisement struct {
	APIServer string
	// CA is the PEM advertised; nil with TrustedCA.
	CA            []byte
	CAFingerprint string
	TrustedCA     bool
	Source        AdvertiseSource
	// Engine serves the provider: with EngineLiqo, no override applies.
	Engine Engine
}

// liqoControllerDeployment is real Liqo's controller, whose flags say what
// it advertises (§6.4).
const liqoControllerDeployment = "liqo-controller-manager"

// ErrLiqoAdvertises refuses an advertise override on a provider served by
// real Liqo: it ignores the Tenant annotations, and a renewal would copy
// its own authParams over an edited Identity.
var ErrLiqoAdvertises = errors.New("the provider is served by Liqo's controller-manager, which decides what it advertises: " +
	"set it on Liqo (`liqoctl install ... --set apiServer.address=<host:port>`, and --set apiServer.ca=<base64 CA PEM> or --set apiServer.trustedCA=true) " +
	"and run again without --api-server-override, --ca-override-file or --trusted-ca")

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
	engine, err := detectEngine(ctx, provider)
	if err != nil {
		return Advertisement{}, err
	}
	if engine == "" {
		engine = EngineInProcess
	}
	if engine == EngineLiqo && o.hasOverride() {
		return Advertisement{Engine: engine}, ErrLiqoAdvertises
	}
	opts, fromController := kube.AdvertiseOptions{}, false
	if engine != EngineInProcess {
		// A controller in a Pod: its flags, else a Node's address and the
		// service account's CA, which kube-root-ca.crt publishes. Our
		// controller without its Deployment runs outside the cluster
		// (`liqo-auth-controller --kubeconfig`, as in `make demo`), or this
		// kubeconfig may not read it: then, as the in-process
		// controllers, the kubeconfig's server is the best guess. Liqo
		// always runs in a Pod.
		deployment := kube.ControllerLeaseName
		if engine == EngineLiqo {
			deployment = liqoControllerDeployment
		}
		var inPod bool
		opts, inPod = deployedAdvertiseFlags(ctx, provider, deployment)
		fromController = opts.APIServerOverride != ""
		if inPod || engine == EngineLiqo {
			opts.NodeAddress = true
			if len(opts.CAOverride) == 0 && !opts.TrustedCA {
				opts.CAOverride = rootCA(ctx, provider)
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

// AdvertisedTo is Advertised for one consumer: what an earlier edit set on
// its Tenant (advertise annotations) holds where o sets nothing, as the
// flows keep it.
func AdvertisedTo(ctx context.Context, provider *kube.Cluster, consumerID string, o EngineOptions) (Advertisement, error) {
	if err := authcrypto.ValidateClusterID(consumerID); err != nil {
		return Advertised(ctx, provider, o)
	}
	t, err := provider.TenantFor(ctx, "", consumerID)
	switch {
	case kube.IsNotFound(err):
		return Advertised(ctx, provider, o)
	case err != nil:
		return Advertisement{}, err
	}
	if engine, err := detectEngine(ctx, provider); err != nil || engine == EngineLiqo {
		return Advertised(ctx, provider, o) // Liqo ignores the annotations
	}
	edit, err := kube.AdvertiseOptions{}.WithTenantAnnotations(t.Annotations)
	if err != nil {
		return Advertisement{}, fmt.Errorf("Tenant %s/%s: %w", t.Namespace, t.Name, err)
	}
	if o.APIServerOverride == "" {
		o.APIServerOverride = edit.APIServerOverride
	}
	if len(o.CAOverride) == 0 && !o.TrustedCA {
		o.CAOverride, o.TrustedCA = edit.CAOverride, edit.TrustedCA
	}
	return Advertised(ctx, provider, o)
}

// deployedAdvertiseFlags reads the advertise flags of a controller
// Deployment (ours and Liqo's share their names, §6.4). found is false for
// a Deployment this kubeconfig may not read, or none.
func deployedAdvertiseFlags(ctx context.Context, c *kube.Cluster, name string) (o kube.AdvertiseOptions, found bool) {
	d, err := c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return kube.AdvertiseOptions{}, false
	}
	var args []string
	for _, ctr := range d.Spec.Template.Spec.Containers {
		args = append(append(args, ctr.Command...), ctr.Args...)
	}
	return advertiseFlags(args), true
}

// advertiseFlags picks --api-server-address-override, --ca-override and
// --trusted-ca out of a command line (--flag=value or --flag value).
func advertiseFlags(args []string) kube.AdvertiseOptions {
	var o kube.AdvertiseOptions
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		next := func() string {
			if hasValue {
				return value
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch name {
		case "api-server-address-override":
			o.APIServerOverride = next()
		case "ca-override":
			if ca, err := kube.DecodeCAOverride(next()); err == nil {
				o.CAOverride = ca
			}
		case "trusted-ca":
			o.TrustedCA = !hasValue
			if hasValue {
				o.TrustedCA, _ = strconv.ParseBool(value)
			}
		}
	}
	return o
}

// rootCA is the cluster CA a Pod's service account trusts, as the
// kube-root-ca.crt ConfigMap publishes it; nil when it cannot be read
// (the kubeconfig's CA is then taken as the best guess).
func rootCA(ctx context.Context, c *kube.Cluster) []byte {
	cm, err := c.Kube.CoreV1().ConfigMaps(c.Namespace).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
	if err != nil || cm.Data["ca.crt"] == "" {
		return nil
	}
	return []byte(cm.Data["ca.crt"])
}

package flows

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
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
		// service account's CA, which kube-root-ca.crt publishes.
		deployment := kube.ControllerLeaseName
		if engine == EngineLiqo {
			deployment = liqoControllerDeployment
		}
		opts = deployedAdvertiseFlags(ctx, provider, deployment)
		fromController = opts.APIServerOverride != ""
		opts.NodeAddress = true
		if len(opts.CAOverride) == 0 && !opts.TrustedCA {
			opts.CAOverride = rootCA(ctx, provider)
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
// Deployment (ours and Liqo's share their names, §6.4). A Deployment this
// kubeconfig may not read, or none, gives no flags.
func deployedAdvertiseFlags(ctx context.Context, c *kube.Cluster, name string) kube.AdvertiseOptions {
	d, err := c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return kube.AdvertiseOptions{}
	}
	var args []string
	for _, ctr := range d.Spec.Template.Spec.Containers {
		args = append(append(args, ctr.Command...), ctr.Args...)
	}
	return advertiseFlags(args)
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

// advertiseAnnotations are the Tenant annotations carrying o's overrides,
// each of the three keys set or (nil) removed: a Tenant says what the run
// that applied it asked for, no more.
func advertiseAnnotations(o EngineOptions) (map[string]*string, error) {
	server := ""
	if o.APIServerOverride != "" {
		s, err := kube.NormalizeAPIServer(o.APIServerOverride)
		if err != nil {
			return nil, err
		}
		server = s
	}
	set := kube.AdvertiseAnnotations(server, o.CAOverride, o.TrustedCA && len(o.CAOverride) == 0)
	out := map[string]*string{}
	for _, k := range []string{kube.AdvertiseAPIServerAnnotation, kube.AdvertiseCAAnnotation, kube.AdvertiseTrustedCAAnnotation} {
		if v, ok := set[k]; ok {
			out[k] = &v
		} else {
			out[k] = nil
		}
	}
	return out, nil
}

// advertiseTenant returns t carrying exactly o's advertise annotations,
// for a Tenant about to be created: the provider's first status already
// honours them, and a consumer's Tenant cannot bring its own.
func advertiseTenant(t *authv1beta1.Tenant, o EngineOptions) (*authv1beta1.Tenant, error) {
	want, err := advertiseAnnotations(o)
	if err != nil {
		return nil, err
	}
	t = t.DeepCopy()
	for k, v := range want {
		if v == nil {
			delete(t.Annotations, k)
			continue
		}
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations[k] = *v
	}
	return t, nil
}

// ensureAdvertiseAnnotations makes the applied Tenant t carry o's advertise
// annotations (written only when they differ): applying a Tenant again
// keeps its metadata. With replace, the annotations o does not set are
// removed (an explicit edit); without, they stay: a later run without
// overrides keeps what an edit set for this consumer, as renewals do. An
// update, not a patch: Liqo's peering user may update Tenants, not patch.
func ensureAdvertiseAnnotations(ctx context.Context, provider *kube.Cluster, t *authv1beta1.Tenant, o EngineOptions, replace bool) (*authv1beta1.Tenant, error) {
	if _, err := advertiseAnnotations(o); err != nil {
		return nil, err
	}
	tenants := provider.Liqo.Tenants(t.Namespace)
	current := t
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if current == nil {
			got, err := tenants.Get(ctx, t.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			current = got
		}
		want, _ := advertiseTenant(current, o)
		if !replace {
			want.Annotations = mergedAnnotations(current.Annotations, want.Annotations)
		}
		if maps.Equal(want.Annotations, current.Annotations) {
			return nil
		}
		updated, err := tenants.Update(ctx, want, metav1.UpdateOptions{})
		if err != nil {
			current = nil // read it again on a conflict
			return err
		}
		current = updated
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("setting what the provider advertises on Tenant %s/%s: %w", t.Namespace, t.Name, provider.Reach(err))
	}
	return current, nil
}

// mergedAnnotations is current with the advertise annotations of want set
// over it, none removed.
func mergedAnnotations(current, want map[string]string) map[string]string {
	out := maps.Clone(current)
	for _, k := range []string{kube.AdvertiseAPIServerAnnotation, kube.AdvertiseCAAnnotation, kube.AdvertiseTrustedCAAnnotation} {
		if v, ok := want[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// advertiseApplied tells whether t's status.authParams already follows its
// advertise annotations (the provider reconciled them).
func advertiseApplied(t *authv1beta1.Tenant) bool {
	p := t.Status.AuthParams
	if p == nil {
		return false
	}
	want, err := kube.AdvertiseOptions{}.WithTenantAnnotations(t.Annotations)
	if err != nil {
		return false // the controller refuses it too, with a Warning
	}
	if want.APIServerOverride != "" && p.APIServer != want.APIServerOverride {
		return false
	}
	switch {
	case len(want.CAOverride) > 0:
		return bytes.Equal(p.CA, want.CAOverride)
	case want.TrustedCA:
		return len(p.CA) == 0
	}
	return true
}

// checkAdvertiseEngine refuses o's overrides when real Liqo serves the
// provider (ErrLiqoAdvertises).
func checkAdvertiseEngine(engine Engine, o EngineOptions) error {
	if engine == EngineLiqo && o.hasOverride() {
		return ErrLiqoAdvertises
	}
	return nil
}

// checkAdvertiseProvider is checkAdvertiseEngine for a flow that has not
// chosen the provider's engine: it looks only when o has overrides.
func checkAdvertiseProvider(ctx context.Context, provider *kube.Cluster, o EngineOptions) error {
	if !o.hasOverride() {
		return nil
	}
	engine, err := detectEngine(ctx, provider)
	if err != nil {
		return err
	}
	return checkAdvertiseEngine(engine, o)
}

// Readvertise makes the provider advertise o.Engine's overrides (or its
// defaults, without) to consumer o.ConsumerID, whose Tenant it accepted:
// annotations on the Tenant, then a wait for its status to follow, served
// in-process when no controller runs. The Identity generated next, and the
// renewals after it, carry the new address and CA. Refused on real Liqo.
func Readvertise(ctx context.Context, o ProviderOptions, sink handshake.Sink) (*authv1beta1.Tenant, error) {
	t, err := o.Provider.TenantFor(ctx, "", o.ConsumerID)
	if kube.IsNotFound(err) {
		return nil, fmt.Errorf("no Tenant from consumer %s on this provider: apply it first (`apply tenant -f tenant.yaml`)", o.ConsumerID)
	}
	if err != nil {
		return nil, err
	}
	engine, err := chooseEngine(ctx, o.Provider, handshake.RoleProvider, o.Engine)
	if err != nil {
		return nil, err
	}
	if err := checkAdvertiseEngine(engine, o.Engine); err != nil {
		return nil, err
	}
	// Without annotations the provider's default must show: the one this
	// screen or command predicted.
	want, err := Advertised(ctx, o.Provider, o.Engine)
	if err != nil {
		return nil, err
	}
	annotated := o.Engine.hasOverride()
	applied := func(got *authv1beta1.Tenant) bool {
		return advertiseApplied(got) && tenantStatusFilled(got, t) && (annotated || got.Status.AuthParams.APIServer == want.APIServer)
	}
	var eng engines
	defer eng.stop()
	steps := []Step{
		{ID: "engine", Title: "Checking the controller", Success: "Controller ready", Failure: "Unable to start the controller",
			Run: func(ctx context.Context) error {
				return eng.serve(ctx, o.Provider, handshake.RoleProvider, engine, o.Engine, sink, handshake.Local)
			}},
		{ID: "advertise", Title: "Setting what the provider advertises", Success: "Advertised address set on the Tenant",
			Failure: "Unable to set the advertised address",
			Command: "kubectl annotate tenant " + t.Name + " -n " + t.Namespace + " " + kube.AdvertiseAPIServerAnnotation + "=<url> --overwrite",
			Run: func(ctx context.Context) (err error) {
				t, err = ensureAdvertiseAnnotations(ctx, o.Provider, t, o.Engine, true)
				return err
			}},
		{ID: "wait-advertise", Title: "Waiting for the provider to advertise it", Success: "Tenant status advertises it",
			Failure: "The provider did not advertise it", Timeout: o.StepTimeout,
			Run: func(ctx context.Context) error {
				tenants := o.Provider.Liqo.Tenants(t.Namespace)
				got, err := waitObserving(ctx, o.Provider, sink, handshake.Local, objectRef{Kind: authv1beta1.TenantKind, Namespace: t.Namespace, Name: t.Name},
					kube.ListWatch(tenants.List, tenants.Watch, kube.ByName(t.Name)), "tenant status to advertise the new address",
					func(got *authv1beta1.Tenant) (bool, error) { return applied(got), nil })
				if err == nil {
					t = got
				}
				return err
			}},
	}
	localScope(steps)
	if err := run(ctx, sink, steps); err != nil {
		return nil, err
	}
	return t, nil
}

// ReasonAdvertisedUnreachable is the reason of the Warning a consumer gets
// when the API server an Identity advertises does not answer from here.
const ReasonAdvertisedUnreachable = "AdvertisedAPIServerUnreachable"

// AdvertisedUnreachableError is a provider's advertised API server that
// does not answer from this machine: one line with what failed and what to
// do.
type AdvertisedUnreachableError struct {
	Reach *kube.ReachError
}

func (e *AdvertisedUnreachableError) Error() string {
	via := ""
	if e.Reach.Proxy != "" {
		via = " through the proxy " + e.Reach.Proxy
	}
	return fmt.Sprintf("the provider's advertised API server %s does not answer from this machine%s: %s: %s "+
		"(ask the provider's admin to advertise an address consumers reach: --api-server-override, or e on the wizard's advertise screen)",
		e.Reach.Server, via, e.Reach.Class, rootMessage(e.Reach))
}

func (e *AdvertisedUnreachableError) Unwrap() error { return e.Reach }

// rootMessage is the ReachError's cause without its own "cannot use" prefix.
func rootMessage(r *kube.ReachError) string {
	msg := r.Error()
	if i := strings.LastIndex(msg, string(r.Class)+": "); i >= 0 {
		msg = msg[i+len(r.Class)+2:]
	}
	return msg
}

// AdvertisedUnreachable turns the failure to reach a provider's advertised
// API server (a *kube.ReachError, as from verify) into the one line that
// says so; other errors come back unchanged.
func AdvertisedUnreachable(err error) error {
	var reach *kube.ReachError
	if !errors.As(err, &reach) || reach.Class == kube.FailureUnauthorized || reach.Class == kube.FailureForbidden {
		return err
	}
	return &AdvertisedUnreachableError{Reach: reach}
}

// CheckAdvertisedReachable dials the API server of authParams from this
// machine (kube.CheckAdvertisedAPIServer): nil when it answers, else an
// *AdvertisedUnreachableError.
func CheckAdvertisedReachable(ctx context.Context, p authv1beta1.AuthParams) error {
	if p.AWSConfig != nil {
		return nil // EKS: reached through AWS credentials, not checked here
	}
	return AdvertisedUnreachable(kube.CheckAdvertisedAPIServer(ctx, p.APIServer, p.CA, p.ProxyURL))
}

// warnIfUnreachable reports, as a Warning progress event, an Identity whose
// advertised API server does not answer from this machine. It does not
// fail: the consumer cluster may reach what this machine cannot.
func warnIfUnreachable(ctx context.Context, p authv1beta1.AuthParams, sink handshake.Sink, scope handshake.Scope) {
	err := CheckAdvertisedReachable(ctx, p)
	if err == nil || sink == nil {
		return
	}
	sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: scope, Warning: true, Reason: ReasonAdvertisedUnreachable,
		Message: err.Error() + "; applied anyway: the consumer cluster may reach it"})
}

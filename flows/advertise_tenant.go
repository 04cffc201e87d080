package flows

import (
	"bytes"
	"context"
	"fmt"
	"maps"

	"k8s.io/client-go/util/retry"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

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
	current := t
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if current == nil {
			got, err := provider.Tenant(ctx, t.Namespace, t.Name)
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
		updated, err := provider.UpdateTenant(ctx, want)
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
	engine, err := serving.Detect(ctx, provider)
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
				got, err := waitObserving(ctx, o.Provider, sink, handshake.Local, kube.ObjectRef{Kind: authv1beta1.TenantKind, Namespace: t.Namespace, Name: t.Name},
					o.Provider.TenantsListWatch(t.Namespace, kube.ByName(t.Name)), "tenant status to advertise the new address",
					func(got *authv1beta1.Tenant) (bool, error) { return applied(got), nil })
				if err == nil {
					t = got
				}
				return err
			}},
	}
	localScope(steps)
	if err := step.Run(ctx, sink, steps); err != nil {
		return nil, err
	}
	return t, nil
}

// ReasonAdvertisedUnreachable is the reason of the Warning a consumer gets
// when the API server an Identity advertises does not answer from here.
const ReasonAdvertisedUnreachable = "AdvertisedAPIServerUnreachable"

// ReadvertiseIfAccepted is Readvertise when the provider already accepted
// the consumer's Tenant, and nothing otherwise (the Tenant applied later
// gets the overrides then).
func ReadvertiseIfAccepted(ctx context.Context, o ProviderOptions, sink handshake.Sink) error {
	if authcrypto.ValidateClusterID(o.ConsumerID) != nil {
		return nil
	}
	_, err := o.Provider.TenantFor(ctx, "", o.ConsumerID)
	switch {
	case kube.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	_, err = Readvertise(ctx, o, sink)
	return err
}

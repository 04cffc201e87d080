package flows

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ProviderOptions drive the provider's manual steps: the tool reaches only
// the provider; artifacts travel by file, clipboard or paste.
type ProviderOptions struct {
	Provider    *kube.Cluster
	ConsumerID  string
	StepTimeout time.Duration
	Engine      EngineOptions
	// ConsumerFingerprint, when set, is the pinned fingerprint of the
	// consumer's key: ApplyTenant refuses a Tenant made with another key.
	ConsumerFingerprint string
}

// CreateNonce ensures the tenant namespace and the nonce Secret for the
// consumer and returns the nonce (§3.4). Re-running returns the same nonce.
func CreateNonce(ctx context.Context, o ProviderOptions, sink handshake.Sink) (string, error) {
	if err := authcrypto.ValidateClusterID(o.ConsumerID); err != nil {
		return "", fmt.Errorf("--remote-cluster-id: %w", err)
	}
	var eng engines
	defer eng.stop()
	var ns *corev1.Namespace
	var nonce string
	steps := []Step{
		providerIDStep(o.Provider, o.ConsumerID),
		ensureTenantNamespaceStep(handshake.Local, o.Provider, func() string { return o.ConsumerID }, &ns),
		ensureNonceSecretStep(o.Provider, func() string { return ns.Name }, func() string { return o.ConsumerID }),
		engineStep(&eng, o.Provider, handshake.RoleProvider, o.Engine, sink),
		waitNonceStep(o.Provider, sink, o.StepTimeout, func() string { return ns.Name }, func() string { return o.ConsumerID }, &nonce),
	}
	localScope(steps)
	return nonce, step.Run(ctx, sink, steps)
}

// GetNonce reads the nonce already created for the consumer.
func GetNonce(ctx context.Context, provider *kube.Cluster, consumerID string) (string, error) {
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if err != nil {
		if kube.IsNotFound(err) {
			return "", fmt.Errorf("no tenant namespace for consumer %s: run `create nonce --remote-cluster-id %s` first", consumerID, consumerID)
		}
		return "", fmt.Errorf("unable to retrieve tenant namespace: %w", err)
	}
	s, err := provider.NonceSecret(ctx, ns.Name, consumerID)
	if err != nil {
		if kube.IsNotFound(err) {
			return "", fmt.Errorf("unable to retrieve nonce: nonce not found for consumer %s: run `create nonce --remote-cluster-id %s`", consumerID, consumerID)
		}
		return "", fmt.Errorf("unable to retrieve nonce: %w", err)
	}
	nonce, err := kube.NonceOf(s)
	if err != nil {
		return "", fmt.Errorf("unable to retrieve nonce: %w (is a controller running on the provider? `create nonce` runs one)", err)
	}
	return nonce, nil
}

// CheckTenant validates a Tenant against the provider before anything is
// written: kind and IDs, the tenant namespace and nonce made for that
// consumer, the signature over that nonce, and the CSR. It returns the
// Tenant placed in the right namespace.
func CheckTenant(ctx context.Context, provider *kube.Cluster, t *authv1beta1.Tenant) (*authv1beta1.Tenant, error) {
	id := t.Spec.ClusterID
	if err := authcrypto.ValidateClusterID(id); err != nil {
		return nil, fmt.Errorf("tenant spec.clusterID: %w", err)
	}
	if _, err := kube.ParseProxyURL(t.Spec.ProxyURL); err != nil {
		return nil, fmt.Errorf("tenant spec.proxyURL: %w: the consumer's kubeconfig could not use it; generate the Tenant again with a valid --proxy-url", err)
	}
	if l, ok := t.Labels[kube.RemoteClusterIDLabel]; ok && l != id {
		return nil, fmt.Errorf("tenant label %s=%s does not match spec.clusterID %s: the file was edited; generate it again on the consumer", kube.RemoteClusterIDLabel, l, id)
	}
	if t.Name != "" && t.Name != id {
		return nil, fmt.Errorf("tenant is named %q but its spec.clusterID is %s: the file was edited; generate it again on the consumer", t.Name, id)
	}
	if err := checkObjectMeta(t.ObjectMeta); err != nil {
		return nil, fmt.Errorf("tenant %w: generate it again on the consumer", err)
	}
	switch t.Spec.AuthzPolicy {
	case "", authv1beta1.KeysExchange, authv1beta1.TolerateNoHandshake:
	default:
		return nil, fmt.Errorf("tenant spec.authzPolicy %q is not KeysExchange or TolerateNoHandshake: generate it again on the consumer", t.Spec.AuthzPolicy)
	}
	switch t.Spec.TenantCondition {
	case "", authv1beta1.TenantConditionActive, authv1beta1.TenantConditionCordoned, authv1beta1.TenantConditionDrained:
	default:
		return nil, fmt.Errorf("tenant spec.tenantCondition %q is not Active, Cordoned or Drained: generate it again on the consumer", t.Spec.TenantCondition)
	}
	own, err := provider.ClusterID(ctx)
	if err != nil {
		return nil, err
	}
	if id == own {
		return nil, fmt.Errorf("this Tenant is for cluster %s, which is this provider itself: apply it on the provider, generate it on the consumer", id)
	}
	ns, err := provider.TenantNamespace(ctx, id)
	if kube.IsNotFound(err) {
		return nil, fmt.Errorf("this provider (%s) made no nonce for consumer %s: the Tenant is for another provider, or run `create nonce --remote-cluster-id %s` here first", own, id, id)
	}
	if err != nil {
		return nil, err
	}
	if t.Namespace != "" && t.Namespace != ns.Name {
		return nil, fmt.Errorf("the Tenant names namespace %s but the tenant namespace of consumer %s here is %s: the Tenant is for another provider", t.Namespace, id, ns.Name)
	}
	nonce, err := GetNonce(ctx, provider, id)
	if err != nil {
		return nil, err
	}
	placed := t.DeepCopy()
	placed.Namespace = ns.Name
	placed.Name = id
	if placed.Labels == nil {
		placed.Labels = map[string]string{}
	}
	placed.Labels[kube.RemoteClusterIDLabel] = id
	placed.ResourceVersion, placed.UID = "", ""
	placed.Status = authv1beta1.TenantStatus{}
	if err := kube.VerifyTenantHandshake(placed, nonce); err != nil {
		var he *kube.HandshakeError
		if errors.As(err, &he) && he.Reason != kube.ReasonSignatureVerificationFailed {
			return nil, fmt.Errorf("%w: the Tenant was altered after it was generated; generate it again on the consumer", err)
		}
		return nil, fmt.Errorf("%w: the Tenant was not signed over this provider's (%s) current nonce for %s; generate it again with `get nonce --remote-cluster-id %s`", err, own, id, id)
	}
	return placed, nil
}

// ApplyTenant validates the Tenant (CheckTenant), applies it and waits for
// the provider to fill its status.
func ApplyTenant(ctx context.Context, o ProviderOptions, t *authv1beta1.Tenant, sink handshake.Sink) (*authv1beta1.Tenant, error) {
	// The pin first: a substituted Tenant is told as such, before anything else.
	if err := artifact.CheckTenantPin(t, o.ConsumerFingerprint); err != nil {
		return nil, err
	}
	var eng engines
	defer eng.stop()
	placed, err := CheckTenant(ctx, o.Provider, t)
	if err != nil {
		return nil, err
	}
	if err := refuseDrainedTenant(ctx, o.Provider, placed.Namespace, placed.Spec.ClusterID); err != nil {
		return nil, err
	}
	var applied *authv1beta1.Tenant
	steps := []Step{
		engineStep(&eng, o.Provider, handshake.RoleProvider, o.Engine, sink),
		{ID: "apply-tenant", Scope: handshake.Local, Title: "Applying tenant", Success: "Tenant correctly applied",
			Failure: "Unable to apply tenant", Command: "kubectl apply -f tenant.yaml -n " + placed.Namespace,
			Run: func(ctx context.Context) (err error) {
				if err := checkAdvertiseProvider(ctx, o.Provider, o.Engine); err != nil {
					return err
				}
				if placed, err = advertiseTenant(placed, o.Engine); err != nil {
					return err
				}
				if applied, _, err = o.Provider.ApplyTenant(ctx, placed); err != nil {
					return err
				}
				applied, err = ensureAdvertiseAnnotations(ctx, o.Provider, applied, o.Engine, false)
				return err
			}},
		waitTenantStatusStep(o.Provider, sink, o.StepTimeout, func() *authv1beta1.Tenant { return applied }, &applied),
	}
	localScope(steps)
	return applied, step.Run(ctx, sink, steps)
}

// GeneratedIdentity is the Identity a provider made for a consumer, with
// the verification code both admins compare ("" when it cannot be made).
type GeneratedIdentity struct {
	Identity *authv1beta1.Identity
	Code     string
}

// GenerateIdentity builds, as a step, the Identity for a consumer whose
// Tenant the provider accepted. consumerNamespace ("" = the default
// liqo-tenant-<providerID>) is where the consumer applies it.
func GenerateIdentity(ctx context.Context, provider *kube.Cluster, consumerID, consumerNamespace string, sink handshake.Sink) (*GeneratedIdentity, error) {
	var id *authv1beta1.Identity
	err := RunStep(ctx, sink, Step{ID: "generate-identity", Scope: handshake.Local, Title: "Generating identity",
		Failure: "An error occurred while generating identity", Command: "liqoctl generate identity --remote-cluster-id " + consumerID,
		Run: func(ctx context.Context) (err error) {
			id, err = forgeIdentity(ctx, provider, consumerID, consumerNamespace)
			return err
		},
		Outcome: func() string { return "Identity correctly generated (API server " + id.Spec.AuthParams.APIServer + ")" }})
	if err != nil {
		return nil, err
	}
	// Best effort: without a code there is nothing to compare, the
	// Identity still works.
	code, _ := providerIdentityCode(ctx, provider, id, consumerID)
	return &GeneratedIdentity{Identity: id, Code: code}, nil
}

// forgeIdentity is GenerateIdentity's work.
func forgeIdentity(ctx context.Context, provider *kube.Cluster, consumerID, consumerNamespace string) (*authv1beta1.Identity, error) {
	own, err := provider.ClusterID(ctx)
	if err != nil {
		return nil, err
	}
	t, err := provider.TenantFor(ctx, "", consumerID)
	if kube.IsNotFound(err) {
		return nil, fmt.Errorf("no Tenant from consumer %s on this provider: apply it first (`apply tenant -f tenant.yaml`)", consumerID)
	}
	if err != nil {
		return nil, err
	}
	if consumerNamespace == "" {
		consumerNamespace = kube.TenantNamespaceName(own)
	}
	return kube.ForgeIdentity(own, consumerNamespace, t)
}

func providerIDStep(provider *kube.Cluster, consumerID string) Step {
	return Step{ID: "cluster-id", Title: "Retrieving cluster ID", Success: "Cluster ID retrieved",
		Failure: "an error occurred while retrieving cluster id",
		Run: func(ctx context.Context) error {
			own, err := provider.ClusterID(ctx)
			if err == nil && own == consumerID {
				err = fmt.Errorf("--remote-cluster-id %s is this cluster's own ID: give the other cluster's ID", own)
			}
			return err
		}}
}

func engineStep(eng *engines, c *kube.Cluster, role handshake.Role, o EngineOptions, sink handshake.Sink) Step {
	return Step{ID: "engine", Title: "Checking the controller", Success: "Controller ready", Failure: "Unable to start the controller",
		Run: func(ctx context.Context) error {
			_, err := eng.ensure(ctx, c, role, o, sink, handshake.Local)
			return err
		}}
}

// localScope marks every step of a one-cluster flow as (local).
func localScope(steps []Step) {
	for i := range steps {
		steps[i].Scope = handshake.Local
	}
}

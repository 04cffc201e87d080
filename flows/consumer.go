package flows

import (
	"context"
	"fmt"
	"net/url"
	"time"

	corev1 "k8s.io/api/core/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ConsumerOptions drive the consumer's manual steps.
type ConsumerOptions struct {
	Consumer    *kube.Cluster
	ProviderID  string
	Nonce       string // "" = reuse the nonce already signed for this provider
	ProxyURL    string // the Tenant's spec.proxyURL, as in AuthenticateOptions
	StepTimeout time.Duration
	Engine      EngineOptions
}

// GenerateTenant signs the provider's nonce with the consumer's key and
// builds the Tenant to send to the provider (§9.2 step 2).
func GenerateTenant(ctx context.Context, o ConsumerOptions, sink handshake.Sink) (*authv1beta1.Tenant, error) {
	if err := authcrypto.ValidateClusterID(o.ProviderID); err != nil {
		return nil, fmt.Errorf("--remote-cluster-id: %w", err)
	}
	if o.Nonce != "" {
		if err := authcrypto.ValidateNonce(o.Nonce); err != nil {
			return nil, fmt.Errorf("%w: copy the whole nonce printed by `create nonce` on the provider", err)
		}
	}
	if _, err := kube.ParseProxyURL(o.ProxyURL); err != nil {
		return nil, fmt.Errorf("--proxy-url: %w", err)
	}
	var eng engines
	defer eng.stop()
	var consumerID, fingerprint string
	var ns *corev1.Namespace
	var signature []byte
	var tenant *authv1beta1.Tenant
	steps := []Step{
		{ID: "cluster-id", Title: "Retrieving cluster ID", Success: "Cluster ID retrieved", Failure: "an error occurred while retrieving cluster id",
			Run: func(ctx context.Context) (err error) {
				if consumerID, err = o.Consumer.ClusterID(ctx); err == nil && consumerID == o.ProviderID {
					err = fmt.Errorf("--remote-cluster-id %s is this cluster's own ID: give the provider's ID", consumerID)
				}
				return err
			}},
		ensureTenantNamespaceStep(handshake.Local, o.Consumer, func() string { return o.ProviderID }, &ns),
		ensureSignedNonceStep(o.Consumer, func() string { return ns.Name }, func() string { return o.ProviderID }, func() string { return o.Nonce }),
		engineStep(&eng, o.Consumer, handshake.RoleConsumer, o.Engine, sink),
		waitSignatureStep(o.Consumer, sink, o.StepTimeout, func() string { return ns.Name }, func() string { return o.ProviderID }, &signature),
		generateTenantStep(o.Consumer, func() string { return consumerID }, func() string { return kube.TenantNamespaceName(consumerID) },
			func() []byte { return signature }, o.ProxyURL, &tenant, &fingerprint),
	}
	localScope(steps)
	if err := run(ctx, sink, steps); err != nil {
		return nil, err
	}
	return tenant, nil
}

// CheckIdentity validates an Identity on the consumer before anything is
// written: kind and IDs, and that its certificate was issued to this
// cluster's ID and key (an Identity for another consumer is refused).
func CheckIdentity(ctx context.Context, consumer *kube.Cluster, id *authv1beta1.Identity) (*authv1beta1.Identity, error) {
	providerID := id.Spec.ClusterID
	if err := authcrypto.ValidateClusterID(providerID); err != nil {
		return nil, fmt.Errorf("identity spec.clusterID: %w", err)
	}
	if id.Spec.Type != authv1beta1.ControlPlaneIdentityType {
		return nil, fmt.Errorf("identity type is %q: only ControlPlane identities are exchanged by hand", id.Spec.Type)
	}
	if l, ok := id.Labels[kube.RemoteClusterIDLabel]; ok && l != providerID {
		return nil, fmt.Errorf("identity label %s=%s does not match spec.clusterID %s: generate it again on the provider", kube.RemoteClusterIDLabel, l, providerID)
	}
	own, err := consumer.ClusterID(ctx)
	if err != nil {
		return nil, err
	}
	if providerID == own {
		return nil, fmt.Errorf("this Identity is from cluster %s, which is this consumer itself: apply it on the consumer, generate it on the provider", own)
	}
	p := id.Spec.AuthParams
	if p.AWSConfig == nil {
		if err := checkIssuedTo(ctx, consumer, p.SignedCRT, own); err != nil {
			return nil, err
		}
	}
	if u, err := url.Parse(p.APIServer); err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("identity authParams.apiServer %q is not an https URL", p.APIServer)
	}
	if len(p.CA) > 0 {
		if _, err := authcrypto.CertificateFingerprint(p.CA); err != nil {
			return nil, fmt.Errorf("identity authParams.ca: %w", err)
		}
	}
	placed := id.DeepCopy()
	placed.ResourceVersion, placed.UID = "", ""
	placed.Status = authv1beta1.IdentityStatus{}
	if placed.Labels == nil {
		placed.Labels = map[string]string{}
	}
	placed.Labels[kube.RemoteClusterIDLabel] = providerID
	return placed, nil
}

func checkIssuedTo(ctx context.Context, consumer *kube.Cluster, certPEM []byte, own string) error {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return fmt.Errorf("identity authParams.signedCRT is not a PEM certificate (%w): the provider has not issued it yet", err)
	}
	if cert.Subject.CommonName != own {
		return fmt.Errorf("this Identity was issued to cluster %s, not to this consumer (%s): it is for another cluster", cert.Subject.CommonName, own)
	}
	pub, _, err := consumer.PublicKey(ctx)
	if err != nil {
		return err
	}
	if !authcrypto.SamePublicKey(cert.PublicKey, pub) {
		return fmt.Errorf("this Identity's certificate is for another key than this cluster's: the Tenant it answers was not made with this cluster's key; generate the Tenant again")
	}
	return nil
}

// ApplyIdentity validates the Identity (CheckIdentity), applies it in the
// tenant namespace of its provider and waits for the kubeconfig Secret.
func ApplyIdentity(ctx context.Context, o ConsumerOptions, id *authv1beta1.Identity, sink handshake.Sink) (*authv1beta1.Identity, error) {
	placed, err := CheckIdentity(ctx, o.Consumer, id)
	if err != nil {
		return nil, err
	}
	var eng engines
	defer eng.stop()
	var ns *corev1.Namespace
	providerID := placed.Spec.ClusterID
	steps := []Step{
		ensureTenantNamespaceStep(handshake.Local, o.Consumer, func() string { return providerID }, &ns),
		engineStep(&eng, o.Consumer, handshake.RoleConsumer, o.Engine, sink),
		{ID: "apply-identity", Title: "Applying identity", Success: "Identity correctly applied",
			Failure: "Unable to apply identity", Command: "kubectl apply -f identity.yaml -n liqo-tenant-" + providerID,
			Run: func(ctx context.Context) (err error) {
				if placed.Namespace != "" && placed.Namespace != ns.Name {
					return fmt.Errorf("the Identity names namespace %s but the tenant namespace of provider %s here is %s", placed.Namespace, providerID, ns.Name)
				}
				placed.Namespace = ns.Name
				placed, _, err = o.Consumer.ApplyIdentity(ctx, placed)
				return err
			}},
		waitIdentityStatusStep(o.Consumer, sink, o.StepTimeout, func() string { return providerID }, &placed),
	}
	localScope(steps)
	if err := run(ctx, sink, steps); err != nil {
		return nil, err
	}
	return placed, nil
}

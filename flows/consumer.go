package flows

import (
	"context"
	"fmt"
	"net/url"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
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
	// ProviderFingerprint, when set, is the pinned fingerprint of the
	// provider's CA (of its API server's certificate when the Identity
	// carries no CA): ApplyIdentity refuses an Identity that is not it.
	ProviderFingerprint string
	// SkipPodReachCheck: ApplyIdentity does not dial the advertised API
	// server from a Pod of the consumer (checkFromConsumerPods).
	SkipPodReachCheck bool
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
	// Everything the cluster can refuse is checked before the first write.
	if err := checkNonceToSign(ctx, o.Consumer, o.ProviderID, o.Nonce); err != nil {
		return nil, err
	}
	if _, err := chooseEngine(ctx, o.Consumer, handshake.RoleConsumer, o.Engine); err != nil {
		return nil, err
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
			func() []byte { return signature }, func() string { return o.ProxyURL }, &tenant, &fingerprint),
	}
	localScope(steps)
	if err := step.Run(ctx, sink, steps); err != nil {
		return nil, err
	}
	return tenant, nil
}

// checkNonceToSign is GenerateTenant's read-only check of the nonce against
// what the consumer already signed for that provider: the provider's own ID
// given as this cluster's, or a nonce other than the one already signed,
// is refused before anything is written.
func checkNonceToSign(ctx context.Context, consumer *kube.Cluster, providerID, nonce string) error {
	own, err := consumer.ClusterID(ctx)
	if err != nil {
		return err
	}
	if own == providerID {
		return fmt.Errorf("--remote-cluster-id %s is this cluster's own ID: give the provider's ID", own)
	}
	ns, err := consumer.TenantNamespace(ctx, providerID)
	if kube.IsNotFound(err) {
		if nonce == "" {
			return fmt.Errorf("no nonce from provider %s signed here yet: pass the provider's nonce (--nonce-file)", providerID)
		}
		return nil
	}
	if err != nil {
		return err
	}
	s, err := consumer.SignedNonceSecret(ctx, ns.Name, providerID)
	if kube.IsNotFound(err) {
		if nonce == "" {
			return fmt.Errorf("no nonce from provider %s signed here yet: pass the provider's nonce (--nonce-file)", providerID)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if existing, err := kube.NonceOf(s); err == nil && nonce != "" && existing != nonce {
		return fmt.Errorf("nonce secret already exists with a different nonce: delete secret %s/%s on the consumer to sign the new nonce, or use the nonce it holds",
			s.Namespace, s.Name)
	}
	return nil
}

// CheckIdentity validates an Identity on the consumer before anything is
// written: kind, name and IDs, that its certificate was issued to this
// cluster's ID and key (an Identity for another consumer is refused), its
// API server, CA and proxy, and that this consumer made a Tenant for that
// provider (an Identity from an unknown provider is refused). It returns
// the Identity placed in the tenant namespace of its provider.
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
	if want := kube.ControlPlaneIdentityName(providerID); id.Name != "" && id.Name != want {
		return nil, fmt.Errorf("identity is named %q, expected %q for provider %s: the file was edited; generate it again on the provider", id.Name, want, providerID)
	}
	if id.Spec.Namespace != "" {
		if errs := validation.IsDNS1123Label(id.Spec.Namespace); len(errs) > 0 {
			return nil, fmt.Errorf("identity spec.namespace %q is not a namespace name: generate it again on the provider", id.Spec.Namespace)
		}
	}
	if err := checkObjectMeta(id.ObjectMeta); err != nil {
		return nil, fmt.Errorf("identity %w: generate it again on the provider", err)
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
		return nil, fmt.Errorf("identity authParams.apiServer %q is not an https URL: generate the Identity again on the provider (--api-server-override names another)", p.APIServer)
	}
	if len(p.CA) > 0 {
		if _, err := authcrypto.CertificateFingerprint(p.CA); err != nil {
			return nil, fmt.Errorf("identity authParams.ca: %w: generate the Identity again on the provider", err)
		}
	}
	if _, err := kube.ParseProxyURL(p.ProxyURL); err != nil {
		return nil, fmt.Errorf("identity authParams.proxyURL: %w: generate the Tenant again with a valid --proxy-url", err)
	}
	// Only a provider this consumer made a Tenant for (a tenant namespace
	// and a signed nonce) may answer with an Identity.
	ns, err := consumer.TenantNamespace(ctx, providerID)
	if err == nil {
		_, err = consumer.SignedNonceSecret(ctx, ns.Name, providerID)
	}
	if kube.IsNotFound(err) {
		return nil, fmt.Errorf("this consumer (%s) made no Tenant for provider %s: the Identity is from another provider, or run `generate tenant --remote-cluster-id %s` here first",
			own, providerID, providerID)
	}
	if err != nil {
		return nil, err
	}
	if id.Namespace != "" && id.Namespace != ns.Name {
		return nil, fmt.Errorf("the Identity names namespace %s but the tenant namespace of provider %s here is %s: the Identity is for another consumer", id.Namespace, providerID, ns.Name)
	}
	placed := id.DeepCopy()
	placed.Namespace = ns.Name
	if placed.Name == "" {
		placed.Name = kube.ControlPlaneIdentityName(providerID)
	}
	placed.ResourceVersion, placed.UID = "", ""
	placed.Status = authv1beta1.IdentityStatus{}
	if placed.Labels == nil {
		placed.Labels = map[string]string{}
	}
	placed.Labels[kube.RemoteClusterIDLabel] = providerID
	return placed, nil
}

// checkObjectMeta refuses metadata the API server would reject: what an
// artifact carries is checked before anything is written.
func checkObjectMeta(m metav1.ObjectMeta) error {
	if m.Name != "" {
		if errs := validation.IsDNS1123Subdomain(m.Name); len(errs) > 0 {
			return fmt.Errorf("name %q: %s", m.Name, errs[0])
		}
	}
	if errs := metav1validation.ValidateLabels(m.Labels, field.NewPath("metadata", "labels")); len(errs) > 0 {
		return fmt.Errorf("metadata.labels: %v is not a valid label key or value", errs[0].BadValue)
	}
	if errs := apimachineryvalidation.ValidateAnnotations(m.Annotations, field.NewPath("metadata", "annotations")); len(errs) > 0 {
		return fmt.Errorf("metadata.annotations: %s", errs[0].ErrorBody())
	}
	if len(m.Finalizers) > 0 || len(m.OwnerReferences) > 0 || m.GenerateName != "" || m.DeletionTimestamp != nil {
		return fmt.Errorf("metadata holds finalizers, owner references, generateName or a deletion timestamp, which no artifact carries")
	}
	return nil
}

func checkIssuedTo(ctx context.Context, consumer *kube.Cluster, certPEM []byte, own string) error {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return fmt.Errorf("identity authParams.signedCRT is not a PEM certificate (%w): the provider has not issued it yet", err)
	}
	if time.Now().After(cert.NotAfter) {
		return fmt.Errorf("this Identity's certificate expired on %s: generate the Tenant again", cert.NotAfter.UTC().Format(time.RFC3339))
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
	if err := checkIdentityPin(ctx, id, o.ProviderFingerprint); err != nil {
		return nil, err
	}
	placed, err := CheckIdentity(ctx, o.Consumer, id)
	if err != nil {
		return nil, err
	}
	// What will serve the side is known before the first write, too.
	if _, err := chooseEngine(ctx, o.Consumer, handshake.RoleConsumer, o.Engine); err != nil {
		return nil, err
	}
	// From here, not from the cluster: a warning, not a refusal.
	warnIfUnreachable(ctx, o.Consumer, placed.Spec.ClusterID, placed.Spec.AuthParams, sink, handshake.Local)
	if p := placed.Spec.AuthParams; !o.SkipPodReachCheck && p.AWSConfig == nil {
		if err := checkFromConsumerPods(ctx, o.Consumer, p.APIServer, p.CA, p.ProxyURL, sink, handshake.Local); err != nil {
			return nil, err
		}
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
	if err := step.Run(ctx, sink, steps); err != nil {
		return nil, err
	}
	return placed, nil
}

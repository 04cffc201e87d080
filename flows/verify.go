package flows

import (
	"context"
	"fmt"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// Verification is what a consumer's credentials can do on the provider.
type Verification = handshake.Verification

// NotAuthenticatedError: the consumer holds no credentials for the provider.
type NotAuthenticatedError struct{ ProviderID string }

func (e *NotAuthenticatedError) Error() string {
	return "no kubeconfig Secret for provider " + e.ProviderID + " on this consumer" + hintSeparator + e.Hint()
}

// Hint says how to get credentials.
func (e *NotAuthenticatedError) Hint() string {
	return "authenticate first: `liqo-auth-tui authenticate --remote-kubeconfig <the provider's kubeconfig>`, or the wizard when you reach only this cluster"
}

// accessCheck is one question asked with a SelfSubjectAccessReview.
type accessCheck struct {
	verb, group, resource, subresource string
	namespace                          string // "" = cluster scope; "<tenant>" = the tenant namespace
}

const tenantNS = "<tenant>"

// checks cover what Liqo's remote-controlplane role grants in the tenant
// namespace, and what it must not grant.
var checks = func() []accessCheck {
	var cs []accessCheck
	for _, r := range []struct{ group, resource string }{
		{"authentication.liqo.io", "resourceslices"}, {"authentication.liqo.io", "renews"}, {"offloading.liqo.io", "namespacemaps"},
	} {
		for _, verb := range crudVerbs {
			cs = append(cs, accessCheck{verb: verb, group: r.group, resource: r.resource, namespace: tenantNS})
		}
		// The same resources in a namespace that is not this consumer's.
		cs = append(cs, accessCheck{verb: "list", group: r.group, resource: r.resource, namespace: kube.DefaultLiqoNamespace})
	}
	return append(cs,
		accessCheck{verb: "get", resource: "secrets", namespace: tenantNS}, accessCheck{verb: "list", resource: "secrets"},
		accessCheck{verb: "list", resource: "namespaces"}, accessCheck{verb: "create", resource: "pods", namespace: tenantNS},
		accessCheck{verb: "list", group: "authentication.liqo.io", resource: "tenants"},
		accessCheck{verb: "create", group: "rbac.authorization.k8s.io", resource: "rolebindings", namespace: tenantNS},
	)
}()

var crudVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// liqo0xChecks cover what a Liqo 0.x provider grants an identity it issued
// (ClusterRole liqo-remote-peering-basic, bound in the tenant namespace):
// ResourceRequests and their status there, and nothing else.
var liqo0xChecks = func() []accessCheck {
	var cs []accessCheck
	for _, sub := range []string{"", "status"} {
		for _, verb := range crudVerbs {
			cs = append(cs, accessCheck{verb: verb, group: liqo0x.ForeignClusters.Group, resource: "resourcerequests", subresource: sub, namespace: tenantNS})
		}
	}
	return append(cs,
		accessCheck{verb: "list", group: liqo0x.ForeignClusters.Group, resource: "resourcerequests", namespace: kube.DefaultLiqoNamespace},
		accessCheck{verb: "list", resource: "secrets"}, accessCheck{verb: "list", resource: "namespaces"},
		accessCheck{verb: "create", resource: "pods", namespace: tenantNS},
	)
}()

func (a accessCheck) String(tenant string) string {
	res := a.resource
	if a.group != "" {
		res += "." + a.group
	}
	if a.subresource != "" {
		res += "/" + a.subresource
	}
	switch a.namespace {
	case "":
		return a.verb + " " + res + " (cluster-wide)"
	case tenantNS:
		return a.verb + " " + res + " -n " + tenant
	}
	return a.verb + " " + res + " -n " + a.namespace
}

// Verify uses, as a step, the consumer's kubeconfig Secret for a provider
// to reach the provider and reports who it is and what it may do there.
// The certificate's expiry, when the kubeconfig's cannot be read, is the
// Identity's.
func Verify(ctx context.Context, consumer *kube.Cluster, providerID string, sink handshake.Sink) (*Verification, error) {
	var v *Verification
	err := RunStep(ctx, sink, Step{ID: "verify", Scope: handshake.Local, Title: "Reaching the provider with the kubeconfig Secret",
		Failure: "Unable to verify", Command: "liqo-auth-tui verify --remote-cluster-id " + providerID,
		Run: func(ctx context.Context) (err error) {
			if v, err = verifyAccess(ctx, consumer, providerID); err != nil {
				return err
			}
			if v.CertificateNotAfter.IsZero() {
				v.CertificateNotAfter = identityNotAfter(ctx, consumer, providerID)
			}
			return nil
		},
		Outcome: func() string {
			return fmt.Sprintf("Authenticated as %s: %d allowed, %d denied", v.User, len(v.Allowed), len(v.Denied))
		}})
	return v, err
}

// verifyAccess is what Verify asks the provider.
func verifyAccess(ctx context.Context, consumer *kube.Cluster, providerID string) (*Verification, error) {
	s, err := kubeconfigSecretFor(ctx, consumer, providerID)
	if kube.IsNotFound(err) {
		// A consumer running Liqo 0.x keeps its identity in liqo-identity-*.
		if v, lerr := verifyLiqo0xIdentity(ctx, consumer, providerID); !kube.IsNotFound(lerr) {
			return v, lerr
		}
		return nil, &NotAuthenticatedError{ProviderID: providerID}
	}
	if err != nil {
		return nil, err
	}
	cfg, ns, err := secretAccess(s)
	if err != nil {
		return nil, err
	}
	cs := checks
	if _, ok := s.Labels[liqo0x.ClientLabel]; ok {
		// This tool's identity from a Liqo 0.x provider.
		cs = liqo0xChecks
	}
	v, err := verifyConfig(ctx, cfg, ns, cs)
	if err != nil {
		return nil, AdvertisedUnreachable(err)
	}
	v.LastRenewal = lastRenewal(ctx, consumer, s)
	return v, nil
}

// lastRenewal reads the last-renewal annotation of the Identity that owns
// the kubeconfig Secret; zero when never renewed (or unreadable).
func lastRenewal(ctx context.Context, consumer *kube.Cluster, s *corev1.Secret) time.Time {
	ref := metav1.GetControllerOf(s)
	if ref == nil || ref.Kind != authv1beta1.IdentityKind {
		return time.Time{}
	}
	id, err := consumer.Liqo.Identities(s.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return time.Time{}
	}
	return lastRenewalOf(id)
}

// VerifyConfig reports who cfg authenticates as on the provider and which
// checks it passes in the tenant namespace.
func VerifyConfig(ctx context.Context, cfg *rest.Config, tenantNamespace string) (*Verification, error) {
	return verifyConfig(ctx, cfg, tenantNamespace, checks)
}

// verifyConfig is VerifyConfig with the checks of the provider's Liqo
// generation.
func verifyConfig(ctx context.Context, cfg *rest.Config, tenantNamespace string, checks []accessCheck) (*Verification, error) {
	c, err := kube.NewCluster(cfg, "")
	if err != nil {
		return nil, err
	}
	v := &Verification{Server: c.Server, TenantNamespace: tenantNamespace, Allowed: []string{}, Denied: []string{}}
	if cert, err := authcrypto.ParseCertificatePEM(cfg.CertData); err == nil {
		v.CertificateNotAfter = cert.NotAfter
	}
	if v.User, v.Groups, err = c.WhoAmI(ctx); err != nil {
		return nil, err
	}
	for _, a := range checks {
		ns := a.namespace
		if ns == tenantNS {
			ns = tenantNamespace
		}
		review := &authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authzv1.ResourceAttributes{Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: ns}}}
		r, err := c.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return nil, c.Reach(err)
		}
		if r.Status.Allowed {
			v.Allowed = append(v.Allowed, a.String(tenantNamespace))
		} else {
			v.Denied = append(v.Denied, a.String(tenantNamespace))
		}
	}
	return v, nil
}

// identityNotAfter is when the certificate of the consumer's Identity for
// providerID expires (zero when it cannot be read).
func identityNotAfter(ctx context.Context, consumer *Cluster, providerID string) time.Time {
	id, err := consumer.ControlPlaneIdentityFor(ctx, providerID)
	if err != nil {
		return time.Time{}
	}
	return artifact.CertificateNotAfter(id)
}

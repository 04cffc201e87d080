package flows

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
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
			if v.Unreached != "" {
				return "Not verified from this machine: " + v.Unreached
			}
			return fmt.Sprintf("Authenticated as %s: %d allowed, %d denied", v.User, len(v.Allowed), len(v.Denied))
		}})
	return v, err
}

// verifyAccess is what Verify asks the provider.
func verifyAccess(ctx context.Context, consumer *kube.Cluster, providerID string) (*Verification, error) {
	s, err := access.KubeconfigSecretFor(ctx, consumer, providerID)
	if kube.IsNotFound(err) {
		// A consumer running Liqo 0.x keeps its identity in liqo-identity-*.
		if v, lerr := liqo0x.VerifyIdentity(ctx, consumer, providerID); !kube.IsNotFound(lerr) {
			return v, lerr
		}
		return nil, &NotAuthenticatedError{ProviderID: providerID}
	}
	if err != nil {
		return nil, err
	}
	cfg, ns, err := access.OfSecret(s)
	if err != nil {
		return nil, err
	}
	if proxy := access.ProxyURLOf(s.Data[kube.KubeconfigField]); proxy != "" && InBandProxy(ctx, consumer, providerID, proxy) {
		// Through the in-band proxy: this machine is rarely inside Liqo's
		// fabric. Dialled once, briefly; not answering is said, not failed.
		if err := kube.CheckAdvertisedAPIServer(ctx, cfg.Host, cfg.CAData, proxy); err != nil {
			v := &Verification{Server: cfg.Host, TenantNamespace: ns, Allowed: []string{}, Denied: []string{},
				Unreached: inBandOnly(cfg.Host, proxy), LastRenewal: lastRenewal(ctx, consumer, s)}
			if cert, cerr := authcrypto.ParseCertificatePEM(cfg.CertData); cerr == nil {
				v.CertificateNotAfter = cert.NotAfter
			}
			return v, nil
		}
	}
	cs := access.ControlPlane
	if _, ok := s.Labels[kliqo0x.ClientLabel]; ok {
		// This tool's identity from a Liqo 0.x provider.
		cs = access.Liqo0x
	}
	v, err := access.Verify(ctx, cfg, ns, cs)
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
	id, err := consumer.Identity(ctx, s.Namespace, ref.Name)
	if err != nil {
		return time.Time{}
	}
	return peerings.LastRenewalOf(id)
}

// VerifyConfig reports who cfg authenticates as on the provider and which
// checks it passes in the tenant namespace.
func VerifyConfig(ctx context.Context, cfg *rest.Config, tenantNamespace string) (*Verification, error) {
	return access.Verify(ctx, cfg, tenantNamespace, access.ControlPlane)
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

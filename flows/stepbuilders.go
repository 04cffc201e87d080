package flows

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The step builders below are shared by the automated and manual flows.
// Values known only once earlier steps ran are passed as getters.

func ensureTenantNamespaceStep(scope handshake.Scope, c *kube.Cluster, remoteID func() string, out **corev1.Namespace) Step {
	return Step{ID: "tenant-namespace-" + string(scope), Scope: scope, Title: "Ensuring tenant namespace",
		Success: "Tenant namespace correctly ensured", Failure: "Unable to ensure tenant namespace",
		Command: "kubectl create namespace liqo-tenant-<remote cluster ID> (labelled liqo.io/tenant-namespace=true)",
		Run: func(ctx context.Context) (err error) {
			*out, _, err = c.EnsureTenantNamespace(ctx, remoteID())
			return err
		}}
}

func ensureNonceSecretStep(provider *kube.Cluster, ns, consumerID func() string) Step {
	return Step{ID: "nonce-secret", Scope: handshake.Remote, Title: "Ensuring nonce secret", Success: "Nonce secret ensured",
		Failure: "Unable to create nonce secret", Command: "liqoctl create nonce --remote-cluster-id <consumer>",
		Run: func(ctx context.Context) error {
			_, err := provider.EnsureNonceSecret(ctx, ns(), consumerID())
			return err
		}}
}

func waitNonceStep(provider *kube.Cluster, sink handshake.Sink, timeout time.Duration, ns, consumerID func() string, out *string) Step {
	return Step{ID: "wait-nonce", Scope: handshake.Remote, Title: "Waiting for nonce to be generated", Success: "Nonce generated successfully",
		Failure: "Failed waiting for nonce to be generated", Timeout: timeout,
		Command: "kubectl get secret liqo-nonce -n liqo-tenant-<consumer> -o jsonpath='{.data.nonce}'",
		Run: func(ctx context.Context) error {
			s, err := waitObserving(ctx, provider, sink, handshake.Remote, kube.ObjectRef{Kind: "Secret", Namespace: ns(), Name: kube.NonceSecretName},
				provider.SecretsListWatch(ns(), kube.BySelector(kube.NonceSelector(consumerID()))), "nonce to be generated",
				func(s *corev1.Secret) (bool, error) { return len(s.Data[kube.NonceField]) > 0, nil })
			if err != nil {
				return err
			}
			*out = string(s.Data[kube.NonceField])
			return nil
		}}
}

func ensureSignedNonceStep(consumer *kube.Cluster, ns, providerID, nonce func() string) Step {
	return Step{ID: "signed-nonce-secret", Scope: handshake.Local, Title: "Ensuring signed nonce", Success: "Signed nonce secret ensured",
		Failure: "Unable to ensure signed nonce secret", Command: "kubectl create secret generic liqo-signed-nonce -n liqo-tenant-<provider> --from-literal=nonce=<nonce>",
		Run: func(ctx context.Context) error {
			_, _, err := consumer.EnsureSignedNonceSecret(ctx, ns(), providerID(), nonce())
			return err
		}}
}

func waitSignatureStep(consumer *kube.Cluster, sink handshake.Sink, timeout time.Duration, ns, providerID func() string, out *[]byte) Step {
	return Step{ID: "wait-signature", Scope: handshake.Local, Title: "Waiting for nonce to be signed", Success: "Nonce is signed",
		Failure: "Failed waiting for nonce to be signed", Timeout: timeout,
		Command: "kubectl get secret liqo-signed-nonce -n liqo-tenant-<provider> -o jsonpath='{.data.signedNonce}'",
		Run: func(ctx context.Context) error {
			s, err := waitObserving(ctx, consumer, sink, handshake.Local, kube.ObjectRef{Kind: "Secret", Namespace: ns(), Name: kube.SignedNonceSecretName},
				consumer.SecretsListWatch(ns(), kube.BySelector(kube.SignedNonceSelector(providerID()))), "nonce to be signed",
				func(s *corev1.Secret) (bool, error) { return len(s.Data[kube.SignedNonceField]) > 0, nil })
			if err != nil {
				return err
			}
			*out = s.Data[kube.SignedNonceField]
			return nil
		}}
}

func generateTenantStep(consumer *kube.Cluster, consumerID func() string, providerNS func() string, signature func() []byte,
	proxyURL func() string, out **authv1beta1.Tenant, fingerprint *string) Step {
	return Step{ID: "generate-tenant", Scope: handshake.Local, Title: "Generating tenant", Success: "Tenant correctly generated",
		Failure: "Unable to generate tenant", Command: "liqoctl generate tenant --remote-cluster-id <provider> --nonce <nonce>",
		Run: func(ctx context.Context) error {
			key, _, err := consumer.PrivateKey(ctx)
			if err != nil {
				return err
			}
			t, err := kube.ForgeTenant(consumerID(), providerNS(), key, signature(), proxyURL())
			if err != nil {
				return err
			}
			if *fingerprint, err = authcrypto.Fingerprint(key.Public()); err != nil {
				return err
			}
			*out = t
			return nil
		}}
}

func waitTenantStatusStep(provider *kube.Cluster, sink handshake.Sink, timeout time.Duration, applied func() *authv1beta1.Tenant, out **authv1beta1.Tenant) Step {
	return Step{ID: "wait-tenant-status", Scope: handshake.Remote, Title: "Waiting for tenant status to be filled", Success: "Tenant status is filled",
		Failure: "Failed waiting for tenant status to be updated", Timeout: timeout,
		Command: "kubectl get tenant <consumer> -n liqo-tenant-<consumer> -o yaml",
		Run: func(ctx context.Context) error {
			t := applied()
			got, err := waitObserving(ctx, provider, sink, handshake.Remote, kube.ObjectRef{Kind: authv1beta1.TenantKind, Namespace: t.Namespace, Name: t.Name},
				provider.TenantsListWatch(t.Namespace, kube.ByName(t.Name)), "tenant status to be filled",
				func(got *authv1beta1.Tenant) (bool, error) { return tenantStatusFilled(got, t), nil })
			if err != nil {
				return err
			}
			*out = got
			return nil
		}}
}

// tenantStatusFilled tells whether the provider accepted this version of the
// Tenant: a status with a certificate for the CSR we sent (for its key: a
// consumer re-installed with new keys must not take the old key's
// certificate), and the proxy we sent (§6.4 copies it): a re-run with
// another --proxy-url must not take the status of the previous one.
func tenantStatusFilled(got, sent *authv1beta1.Tenant) bool {
	s := got.Status
	if s.TenantNamespace == "" || s.AuthParams == nil || len(s.AuthParams.SignedCRT) == 0 && s.AuthParams.AWSConfig == nil {
		return false
	}
	if len(s.AuthParams.SignedCRT) > 0 {
		// Unreadable ones are not judged here.
		if forKey, err := authcrypto.CertificateForKey(s.AuthParams.SignedCRT, sent.Spec.PublicKey); err == nil && !forKey {
			return false
		}
	}
	return string(got.Spec.CSR) == string(sent.Spec.CSR) && s.AuthParams.ProxyURL == sent.Spec.ProxyURL && advertiseApplied(got)
}

func waitIdentityStatusStep(consumer *kube.Cluster, sink handshake.Sink, timeout time.Duration, providerID func() string, io **authv1beta1.Identity) Step {
	return Step{ID: "wait-identity-status", Scope: handshake.Local, Title: "Waiting for identity status to be filled", Success: "Identity status is filled",
		Failure: "Failed waiting for identity status to be updated", Timeout: timeout,
		Command: "kubectl get identity controlplane-<provider> -n liqo-tenant-<provider> -o yaml",
		Run: func(ctx context.Context) error {
			id := *io
			got, err := waitObserving(ctx, consumer, sink, handshake.Local, kube.ObjectRef{Kind: authv1beta1.IdentityKind, Namespace: id.Namespace, Name: id.Name},
				consumer.IdentitiesListWatch(id.Namespace, kube.ByName(id.Name)), "identity status to be filled",
				func(got *authv1beta1.Identity) (bool, error) {
					return got.Status.KubeconfigSecretRef != nil && got.Status.KubeconfigSecretRef.Name != "", nil
				})
			if err != nil {
				return err
			}
			// A re-applied Identity already names its Secret: the step ends
			// once the Secret carries this Identity (the in-process
			// controllers stop with the flow).
			name := got.Status.KubeconfigSecretRef.Name
			if s, err := consumer.Secret(ctx, got.Namespace, name); err == nil && kube.KubeconfigCurrent(s, got) {
				*io = got // the usual case: one read, no watch
				return nil
			}
			if _, err := waitObserving(ctx, consumer, sink, handshake.Local, kube.ObjectRef{Kind: "Secret", Namespace: got.Namespace, Name: name},
				consumer.SecretsListWatch(got.Namespace, kube.ByName(name)), "the kubeconfig Secret to carry the applied identity",
				func(s *corev1.Secret) (bool, error) { return kube.KubeconfigCurrent(s, got), nil }); err != nil {
				return err
			}
			*io = got
			return nil
		}}
}

// describe is a short "kind namespace/name" for messages.
func describe(kind, namespace, name string) string {
	if namespace == "" {
		return fmt.Sprintf("%s %s", kind, name)
	}
	return fmt.Sprintf("%s %s/%s", kind, namespace, name)
}

package peerings

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ProviderStage reads the provider's progress with a consumer.
func ProviderStage(ctx context.Context, provider *kube.Cluster, consumerID string) (handshake.Stage, error) {
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if kube.IsNotFound(err) {
		return handshake.StageCreateNonce, nil
	}
	if err != nil {
		return "", err
	}
	t, err := provider.TenantFor(ctx, ns.Name, consumerID)
	if kube.IsNotFound(err) {
		t, err = nil, nil
	}
	if err != nil {
		return "", err
	}
	if t != nil && TenantAccepted(t) {
		return handshake.StageGenerateIdentity, nil
	}
	s, err := provider.NonceSecret(ctx, ns.Name, consumerID)
	if kube.IsNotFound(err) {
		s, err = nil, nil
	}
	if err != nil {
		return "", err
	}
	return ProviderStageOf(true, t, s), nil
}

// ProviderStageOf is the provider's stage from what it holds for the
// consumer: its tenant namespace, Tenant and nonce Secret (nil: none).
func ProviderStageOf(namespace bool, t *authv1beta1.Tenant, nonce *corev1.Secret) handshake.Stage {
	switch {
	case !namespace:
		return handshake.StageCreateNonce
	case t != nil && TenantAccepted(t):
		return handshake.StageGenerateIdentity
	case nonce == nil:
		return handshake.StageCreateNonce
	}
	if _, err := kube.NonceOf(nonce); err != nil {
		return handshake.StageCreateNonce
	}
	return handshake.StageAwaitTenant
}

// ConsumerStage reads the consumer's progress with a provider.
func ConsumerStage(ctx context.Context, consumer *kube.Cluster, providerID string) (handshake.Stage, error) {
	if _, err := access.KubeconfigSecretFor(ctx, consumer, providerID); err == nil {
		return handshake.StageAuthenticated, nil
	} else if !kube.IsNotFound(err) {
		return "", err
	}
	ns, err := consumer.TenantNamespace(ctx, providerID)
	if kube.IsNotFound(err) {
		return handshake.StageAwaitNonce, nil
	}
	if err != nil {
		return "", err
	}
	_, err = consumer.SignedNonceSecret(ctx, ns.Name, providerID)
	if err != nil && !kube.IsNotFound(err) {
		return "", err
	}
	return consumerStageOf(false, true, err == nil), nil
}

// consumerStageOf is the consumer's stage from what it holds for the
// provider: a kubeconfig Secret, its tenant namespace, a signed nonce.
func consumerStageOf(kubeconfig, namespace, signedNonce bool) handshake.Stage {
	switch {
	case kubeconfig:
		return handshake.StageAuthenticated
	case namespace && signedNonce:
		return handshake.StageAwaitIdentity
	}
	return handshake.StageAwaitNonce
}

package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
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
	switch {
	case err == nil && t.Status.AuthParams != nil && t.Status.TenantNamespace != "":
		return handshake.StageGenerateIdentity, nil
	case err != nil && !kube.IsNotFound(err):
		return "", err
	}
	s, err := provider.NonceSecret(ctx, ns.Name, consumerID)
	if kube.IsNotFound(err) {
		return handshake.StageCreateNonce, nil
	}
	if err != nil {
		return "", err
	}
	if _, err := kube.NonceOf(s); err != nil {
		return handshake.StageCreateNonce, nil
	}
	return handshake.StageAwaitTenant, nil
}

// ConsumerStage reads the consumer's progress with a provider.
func ConsumerStage(ctx context.Context, consumer *kube.Cluster, providerID string) (handshake.Stage, error) {
	if _, err := kubeconfigSecretFor(ctx, consumer, providerID); err == nil {
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
	if _, err := consumer.SignedNonceSecret(ctx, ns.Name, providerID); kube.IsNotFound(err) {
		return handshake.StageAwaitNonce, nil
	} else if err != nil {
		return "", err
	}
	return handshake.StageAwaitIdentity, nil
}

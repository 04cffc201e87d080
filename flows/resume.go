package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Stage is where one side of a manual handshake stands, read from its
// cluster: quitting anywhere and starting again lands on the next step.
type Stage string

const (
	// Provider stages.
	StageCreateNonce      Stage = "create-nonce"      // no nonce yet for the consumer
	StageAwaitTenant      Stage = "await-tenant"      // nonce exists, no accepted Tenant
	StageGenerateIdentity Stage = "generate-identity" // Tenant accepted: send the Identity
	// Consumer stages.
	StageAwaitNonce    Stage = "await-nonce"    // nothing signed yet for the provider
	StageAwaitIdentity Stage = "await-identity" // nonce signed, Tenant sent: waiting for the Identity
	StageAuthenticated Stage = "authenticated"  // the kubeconfig Secret exists
)

// ProviderStage reads the provider's progress with a consumer.
func ProviderStage(ctx context.Context, provider *kube.Cluster, consumerID string) (Stage, error) {
	ns, err := provider.TenantNamespace(ctx, consumerID)
	if kube.IsNotFound(err) {
		return StageCreateNonce, nil
	}
	if err != nil {
		return "", err
	}
	t, err := provider.TenantFor(ctx, ns.Name, consumerID)
	switch {
	case err == nil && t.Status.AuthParams != nil && t.Status.TenantNamespace != "":
		return StageGenerateIdentity, nil
	case err != nil && !kube.IsNotFound(err):
		return "", err
	}
	s, err := provider.NonceSecret(ctx, ns.Name, consumerID)
	if kube.IsNotFound(err) {
		return StageCreateNonce, nil
	}
	if err != nil {
		return "", err
	}
	if _, err := kube.NonceOf(s); err != nil {
		return StageCreateNonce, nil
	}
	return StageAwaitTenant, nil
}

// ConsumerStage reads the consumer's progress with a provider.
func ConsumerStage(ctx context.Context, consumer *kube.Cluster, providerID string) (Stage, error) {
	if _, err := consumer.KubeconfigSecretFor(ctx, providerID); err == nil {
		return StageAuthenticated, nil
	} else if !kube.IsNotFound(err) {
		return "", err
	}
	ns, err := consumer.TenantNamespace(ctx, providerID)
	if kube.IsNotFound(err) {
		return StageAwaitNonce, nil
	}
	if err != nil {
		return "", err
	}
	if _, err := consumer.SignedNonceSecret(ctx, ns.Name, providerID); kube.IsNotFound(err) {
		return StageAwaitNonce, nil
	} else if err != nil {
		return "", err
	}
	return StageAwaitIdentity, nil
}

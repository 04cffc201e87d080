package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Each side's verification code (artifact.TenantCode, IdentityCode) from
// the artifact and what its own cluster holds: the sender's from what it
// made, the receiver's from what it received. Reads only.

// ConsumerTenantCode is the consumer's code for the Tenant it made for
// providerID: the nonce is the one it signed.
func ConsumerTenantCode(ctx context.Context, consumer *kube.Cluster, t *authv1beta1.Tenant, providerID string) (string, error) {
	nonce, err := signedNonce(ctx, consumer, providerID)
	if err != nil {
		return "", err
	}
	return artifact.TenantCode(t, providerID, nonce)
}

// ProviderTenantCode is the provider's code for a Tenant it received: its
// own ID and the nonce it made for the consumer the Tenant names.
func ProviderTenantCode(ctx context.Context, provider *kube.Cluster, t *authv1beta1.Tenant) (string, error) {
	own, err := provider.ClusterID(ctx)
	if err != nil {
		return "", err
	}
	nonce, err := GetNonce(ctx, provider, t.Spec.ClusterID)
	if err != nil {
		return "", err
	}
	return artifact.TenantCode(t, own, nonce)
}

// providerIdentityCode is the provider's code for the Identity it made
// for consumerID: the key is the one of the Tenant it accepted.
func providerIdentityCode(ctx context.Context, provider *kube.Cluster, id *authv1beta1.Identity, consumerID string) (string, error) {
	t, err := provider.TenantFor(ctx, "", consumerID)
	if err != nil {
		return "", err
	}
	key, err := artifact.TenantFingerprint(t)
	if err != nil {
		return "", err
	}
	nonce, err := GetNonce(ctx, provider, consumerID)
	if err != nil {
		return "", err
	}
	return artifact.IdentityCode(id, consumerID, key, nonce)
}

// ConsumerIdentityCode is the consumer's code for an Identity it
// received: its own ID and key, and the nonce it signed for the provider.
func ConsumerIdentityCode(ctx context.Context, consumer *kube.Cluster, id *authv1beta1.Identity) (string, error) {
	own, err := consumer.ClusterID(ctx)
	if err != nil {
		return "", err
	}
	key, err := KeyFingerprint(ctx, consumer)
	if err != nil {
		return "", err
	}
	nonce, err := signedNonce(ctx, consumer, id.Spec.ClusterID)
	if err != nil {
		return "", err
	}
	return artifact.IdentityCode(id, own, key, nonce)
}

// signedNonce is the nonce the consumer signed for providerID.
func signedNonce(ctx context.Context, consumer *kube.Cluster, providerID string) (string, error) {
	ns, err := consumer.TenantNamespace(ctx, providerID)
	if err != nil {
		return "", err
	}
	s, err := consumer.SignedNonceSecret(ctx, ns.Name, providerID)
	if err != nil {
		return "", err
	}
	return kube.NonceOf(s)
}

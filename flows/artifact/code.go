package artifact

import (
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The verification codes both admins read aloud (issue 30): each side
// computes one from what it holds, the sender from what it made, the
// receiver from what it received and its own state; a replaced artifact
// gives the receiver another code than the sender's.

// TenantCode is the code of the Tenant's hand-off: the consumer's ID and
// key as the Tenant carries them, the provider's ID and its nonce (the
// consumer's copy, the one it signed, on its side).
func TenantCode(t *authv1beta1.Tenant, providerID, nonce string) (string, error) {
	key, err := TenantFingerprint(t)
	if err != nil {
		return "", err
	}
	return authcrypto.HandoffCode(authcrypto.HandoffCodeInput{ConsumerID: t.Spec.ClusterID, ProviderID: providerID, Nonce: nonce, ConsumerKey: key}), nil
}

// IdentityCode is the code of the Identity's hand-off: the Tenant's
// fields (consumerKey is the consumer key's fingerprint) and the CA and
// API server the Identity carries.
func IdentityCode(id *authv1beta1.Identity, consumerID, consumerKey, nonce string) (string, error) {
	ca, err := IdentityCAFingerprint(id)
	if err != nil {
		return "", err
	}
	return authcrypto.HandoffCode(authcrypto.HandoffCodeInput{ConsumerID: consumerID, ProviderID: id.Spec.ClusterID, Nonce: nonce,
		ConsumerKey: consumerKey, ProviderCA: ca, APIServer: id.Spec.AuthParams.APIServer}), nil
}

package artifact_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// roundTrip is an artifact as the receiver reads it after the hand-off.
func roundTrip[T any](t *testing.T, obj any, decode func([]byte) (T, error)) T {
	t.Helper()
	data, err := artifact.Encode(obj, "yaml")
	require.NoError(t, err)
	got, err := decode(data)
	require.NoError(t, err)
	return got
}

// Both sides compute the same code from what each holds; a Tenant from
// another key, another nonce or another cluster gives another code.
func TestTenantCodeEqualOnBothSidesDifferentAfterSubstitution(t *testing.T) {
	const nonce, otherNonce, providerID = "provider-nonce", "another-nonce", "p1"
	made, _ := tenantWithNewKey(t)
	made.TypeMeta.APIVersion, made.TypeMeta.Kind = authv1beta1.GroupVersion.String(), authv1beta1.TenantKind
	consumerSide, err := artifact.TenantCode(made, providerID, nonce)
	require.NoError(t, err)
	received := roundTrip(t, made, artifact.DecodeTenant)
	providerSide, err := artifact.TenantCode(received, providerID, nonce)
	require.NoError(t, err)
	assert.Equal(t, consumerSide, providerSide)

	forged, _ := tenantWithNewKey(t) // the attacker's key, the consumer's ID
	forgedCode, err := artifact.TenantCode(forged, providerID, nonce)
	require.NoError(t, err)
	assert.NotEqual(t, consumerSide, forgedCode, "another key")
	for name, code := range map[string]func() (string, error){
		"another nonce":    func() (string, error) { return artifact.TenantCode(received, providerID, otherNonce) },
		"another provider": func() (string, error) { return artifact.TenantCode(received, "p2", nonce) },
	} {
		got, err := code()
		require.NoError(t, err)
		assert.NotEqual(t, consumerSide, got, name)
	}
}

func TestIdentityCodeEqualOnBothSidesDifferentAfterSubstitution(t *testing.T) {
	const nonce, consumerID = "provider-nonce", "c1"
	_, consumerKey := tenantWithNewKey(t)
	made := &authv1beta1.Identity{Spec: authv1beta1.IdentitySpec{ClusterID: "p1", Type: authv1beta1.ControlPlaneIdentityType,
		AuthParams: authv1beta1.AuthParams{CA: newCAPEM(t), APIServer: "https://p1:6443", SignedCRT: []byte("x")}}}
	made.TypeMeta.APIVersion, made.TypeMeta.Kind = authv1beta1.GroupVersion.String(), authv1beta1.IdentityKind
	providerSide, err := artifact.IdentityCode(made, consumerID, consumerKey, nonce)
	require.NoError(t, err)
	received := roundTrip(t, made, artifact.DecodeIdentity)
	consumerSide, err := artifact.IdentityCode(received, consumerID, consumerKey, nonce)
	require.NoError(t, err)
	assert.Equal(t, providerSide, consumerSide)

	for name, change := range map[string]func(*authv1beta1.Identity){
		"another CA":         func(x *authv1beta1.Identity) { x.Spec.AuthParams.CA = newCAPEM(t) },
		"another API server": func(x *authv1beta1.Identity) { x.Spec.AuthParams.APIServer = "https://attacker:6443" },
		"no CA":              func(x *authv1beta1.Identity) { x.Spec.AuthParams.CA = nil },
		"another provider":   func(x *authv1beta1.Identity) { x.Spec.ClusterID = "p2" },
	} {
		substituted := received.DeepCopy()
		change(substituted)
		got, err := artifact.IdentityCode(substituted, consumerID, consumerKey, nonce)
		require.NoError(t, err)
		assert.NotEqual(t, providerSide, got, name)
	}
	// The provider answered a forged Tenant: its code has the attacker's key.
	_, attackerKey := tenantWithNewKey(t)
	got, err := artifact.IdentityCode(received, consumerID, attackerKey, nonce)
	require.NoError(t, err)
	assert.NotEqual(t, consumerSide, got, "another consumer key")
}

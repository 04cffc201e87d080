//go:build cluster

package liqointerop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// reinstalledConsumerRecovers: the consumer of an authenticated pair is
// re-installed with new keys under its cluster ID (its keys Secret
// replaced, the nonce it signed with the old key gone) and authenticates
// again. The provider holds the old key's certificate and its cache the
// old CSR: authenticate ends at once on the provider's refusal (Liqo's
// own message), with what to do, and leaves the consumer's kubeconfig
// alone. The provider then signs the new CSR as Liqo v1.2 decides: once
// the certificate in the Tenant's status is due (made due here, instead
// of waiting months); Liqo v1.0 and v1.1 never skip their cache, so there
// the cache Secret is deleted, as the hint says. The next authenticate
// gets a certificate for the new key, and the consumer's kubeconfig works.
func reinstalledConsumerRecovers(t *testing.T, ctx context.Context, consumer, provider *kube.Cluster, consumerID, providerID string, signsWhenDue bool) {
	t.Helper()
	before, err := consumer.KubeconfigSecretFor(ctx, providerID)
	require.NoError(t, err)
	labtest.RotateKeys(t, ctx, consumer)
	consNS, provNS := kube.TenantNamespaceName(providerID), kube.TenantNamespaceName(consumerID)
	require.NoError(t, consumer.DeleteSecret(ctx, consNS, kube.SignedNonceSecretName))

	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.Error(t, err)
	assert.True(t, kube.StoredCSRMismatchMessage(err.Error()), "the provider's own refusal: %v", err)
	assert.Contains(t, flows.Explain(err).Hint, "re-installed with new keys under its cluster ID: the provider holds its old key's certificate in Secret "+
		provNS+"/"+kube.RemoteCertSecretName)
	after, err := consumer.KubeconfigSecretFor(ctx, providerID)
	require.NoError(t, err)
	assert.Equal(t, before.Data, after.Data, "a refused authenticate leaves the consumer's kubeconfig")

	tenant, err := provider.TenantFor(ctx, provNS, consumerID)
	require.NoError(t, err)
	if signsWhenDue {
		labtest.SetTenantCertificate(t, ctx, provider, provNS, tenant.Name, labtest.DueCertificate(t, consumerID))
	} else {
		require.NoError(t, provider.DeleteSecret(ctx, provNS, kube.RemoteCertSecretName))
	}
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	newKey, _, err := consumer.PublicKey(ctx)
	require.NoError(t, err)
	cert, err := authcrypto.ParseCertificatePEM(res.Tenant.Status.AuthParams.SignedCRT)
	require.NoError(t, err)
	assert.True(t, authcrypto.SamePublicKey(cert.PublicKey, newKey), "the provider signed the new key's CSR")
	cached, err := provider.Kube.CoreV1().Secrets(provNS).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, res.Tenant.Spec.CSR, cached.Data[kube.RemoteCertCSRField], "the provider's cache holds the new CSR")

	s, err := consumer.KubeconfigSecretFor(ctx, providerID)
	require.NoError(t, err)
	assert.True(t, authcrypto.SamePublicKey(liqotest.KubeconfigCertificate(t, s).PublicKey, newKey), "the kubeconfig carries the new key's certificate")
	v, err := flows.Verify(ctx, consumer, providerID, nil)
	require.NoError(t, err)
	assert.Equal(t, consumerID, v.User)
	assert.Contains(t, v.Allowed, "list resourceslices.authentication.liqo.io -n "+provNS)
}

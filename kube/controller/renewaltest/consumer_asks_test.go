//go:build cluster

package renewaltest

import (
	"bytes"
	"context"
	"crypto"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

// The consumer-driven renewal of Liqo v1.0–v1.1 (§10.2), our consumer's
// side, with 3-minute certificates. The provider first answers no Renew
// (ours without its Renew writer, as a provider that never renews by
// itself looks from the consumer): by 5/6 of the validity, not before, the
// consumer asks as a v1.0–v1.1 consumer does, with the Tenant's CSR byte for
// byte and its key as PKIX DER in its Renew, says so on the Identity, and
// warns at the next round that no certificate came. Once the provider
// answers, the consumer applies the new certificate before the old one
// expires, and it gets in.
func TestConsumerAsksWhenTheProviderDoesNotRenew(t *testing.T) {
	clusters := testLab.Clusters(t)
	p, c := initCluster(t, clusters[0].Config, providerID), initCluster(t, clusters[1].Config, consumerID)
	stopProvider := startManager(t, p, controller.Options{Provider: true, HandshakeOnly: true})
	runManager(t, c, controller.Options{Consumer: true})

	consNS, identityName := authenticate(t, p, c)
	secrets := c.Kube.CoreV1().Secrets(consNS)
	secretName := kube.KubeconfigSecretName(identityName)
	first, err := secrets.Get(labtest.Context(t), secretName, metav1.GetOptions{})
	require.NoError(t, err)
	old := kubeconfigCertificate(t, first)
	askAt := old.NotAfter.Add(-old.NotAfter.Sub(old.NotBefore) / 6)
	t.Logf("first certificate valid until %s; the consumer asks from %s (in %s)", old.NotAfter.Format(time.TimeOnly),
		askAt.Format(time.TimeOnly), time.Until(askAt).Round(time.Second))
	beforeExpiry, cancel := context.WithDeadline(t.Context(), old.NotAfter)
	defer cancel()

	// The copy on the provider carries the ask from 5/6 on.
	provNS := kube.TenantNamespaceName(consumerID)
	renews := p.Liqo.Renews(provNS)
	asked, err := kube.WaitFor(beforeExpiry, kube.ListWatch(renews.List, renews.Watch, kube.ByName(identityName)), "Renew with a CSR",
		func(r *authv1beta1.Renew) (bool, error) { return len(r.Spec.CSR) > 0, nil })
	require.NoError(t, err, "the consumer did not ask before its certificate expired")
	t.Logf("asked %s after the 5/6 point", time.Since(askAt).Round(time.Millisecond))
	assert.False(t, time.Now().Before(askAt), "asked before 5/6 of the validity")
	tenant, err := p.Liqo.Tenants(provNS).Get(labtest.Context(t), consumerID, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, tenant.Spec.CSR, asked.Spec.CSR, "the Tenant's CSR, byte for byte")
	pub, _, err := c.PublicKey(labtest.Context(t))
	require.NoError(t, err)
	der, err := authcrypto.PublicKeyDER(pub)
	require.NoError(t, err)
	assert.Equal(t, der, asked.Spec.PublicKey, "the key as PKIX DER, as Liqo v1.0–v1.1")
	assert.Equal(t, authv1beta1.ControlPlaneIdentityType, asked.Spec.IdentityType)
	assert.NotEmpty(t, asked.Annotations[kube.RenewAskedAnnotation])
	waitEvent(t, c, authv1beta1.IdentityKind, consNS, identityName, controller.ReasonRenewalAsked)
	ev := waitEvent(t, c, authv1beta1.IdentityKind, consNS, identityName, controller.ReasonCertificateNotRenewed)
	assert.Equal(t, corev1.EventTypeWarning, ev.Type)
	assert.Contains(t, ev.Message, "delete Secret "+kube.RemoteCertSecretName+" in namespace "+provNS)

	// The provider answers: the Tenant's certificate, renewed meanwhile.
	stopProvider()
	runManager(t, p, controller.Options{Provider: true})
	renewedSecret, err := kube.WaitFor(beforeExpiry, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(secretName)), "kubeconfig rewritten",
		func(s *corev1.Secret) (bool, error) {
			return !bytes.Equal(s.Data[kube.KubeconfigField], first.Data[kube.KubeconfigField]), nil
		})
	require.NoError(t, err, "the kubeconfig Secret was not rewritten before the first certificate expired")
	renewed := kubeconfigCertificate(t, renewedSecret)
	t.Logf("kubeconfig rewritten %s before the old certificate expired", time.Until(old.NotAfter).Round(time.Second))
	assert.True(t, renewed.NotAfter.After(old.NotAfter))
	assert.True(t, old.PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(renewed.PublicKey), "same key, new certificate")
	cfg, err := clientcmd.RESTConfigFromKubeConfig(renewedSecret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	remote, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	user, _, err := remote.WhoAmI(labtest.Context(t))
	require.NoError(t, err)
	assert.Equal(t, consumerID, user)
}

//go:build cluster

package renewaltest

import (
	"context"
	"crypto"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// The consumer-driven renewal of Liqo v1.0–v1.1 (§10.2), our consumer's
// side, with 3-minute certificates, for the control plane and a slice. The
// provider first answers nothing (ours without its Renew and slice
// reconcilers, as a provider that never renews by itself looks from the
// consumer): by 5/6 of the validity, not before, the consumer asks as a
// v1.0–v1.1 consumer does, with the Tenant's or the slice's CSR byte for
// byte and its key as PKIX DER in a Renew, says so on the Identity, and
// warns at the next round that no certificate came. Once the provider
// answers, the consumer applies the new certificates before the old ones
// expire, they get in, and the slice's Renew, made for the ask, goes.
func TestConsumerAsksWhenTheProviderDoesNotRenew(t *testing.T) {
	clusters := testLab.Clusters(t)
	p, c := initCluster(t, clusters[0].Config, providerID), initCluster(t, clusters[1].Config, consumerID)
	stopProvider := startManager(t, p, controller.Options{Provider: true})
	runManager(t, c, controller.Options{Consumer: true})
	consNS, cpName := authenticate(t, p, c)
	const slice = "asked-slice"
	ctx := labtest.Context(t) // for the first minute
	slices := c.Liqo.ResourceSlices(consNS)
	_, err := slices.Create(ctx, kube.ForgeResourceSlice(slice, consNS, providerID, authv1beta1.ResourceSliceClassDefault,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}, false), metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = slices.Delete(context.Background(), slice, metav1.DeleteOptions{}) })
	sliceName := kube.ResourceSliceIdentityName(slice)
	waitSecret(t, c, consNS, kube.KubeconfigSecretName(sliceName), kube.KubeconfigField)
	// From here on the provider renews nothing and answers no Renew.
	stopProvider()
	stopProvider = startManager(t, p, controller.Options{Provider: true, HandshakeOnly: true})

	provNS := kube.TenantNamespaceName(consumerID)
	tenant, err := p.Liqo.Tenants(provNS).Get(ctx, consumerID, metav1.GetOptions{})
	require.NoError(t, err)
	remoteSlice, err := p.Liqo.ResourceSlices(provNS).Get(ctx, slice, metav1.GetOptions{})
	require.NoError(t, err)
	pub, _, err := c.PublicKey(ctx)
	require.NoError(t, err)
	der, err := authcrypto.PublicKeyDER(pub)
	require.NoError(t, err)
	identities := []*askedIdentity{
		{name: cpName, csr: tenant.Spec.CSR, cache: kube.RemoteCertSecretName},
		{name: sliceName, csr: remoteSlice.Spec.CSR, cache: kube.ResourceSliceCertSecretName(slice), slice: slice},
	}
	for _, k := range identities {
		s, err := c.Kube.CoreV1().Secrets(consNS).Get(ctx, kube.KubeconfigSecretName(k.name), metav1.GetOptions{})
		require.NoError(t, err)
		k.first = kubeconfigCertificate(t, s)
		k.askAt = k.first.NotAfter.Add(-k.first.NotAfter.Sub(k.first.NotBefore) / 6)
		t.Logf("%s: certificate valid until %s; the consumer asks from %s (in %s)", k.name, k.first.NotAfter.Format(time.TimeOnly),
			k.askAt.Format(time.TimeOnly), time.Until(k.askAt).Round(time.Second))
	}

	// The copies on the provider carry the asks from 5/6 on.
	renews := p.Liqo.Renews(provNS)
	for _, k := range identities {
		beforeExpiry, cancel := context.WithDeadline(t.Context(), k.first.NotAfter)
		asked, err := kube.WaitFor(beforeExpiry, kube.ListWatch(renews.List, renews.Watch, kube.ByName(k.name)), "Renew with a CSR",
			func(r *authv1beta1.Renew) (bool, error) { return len(r.Spec.CSR) > 0, nil })
		cancel()
		require.NoError(t, err, "the consumer did not ask for %s before its certificate expired", k.name)
		t.Logf("%s: asked %s after the 5/6 point", k.name, time.Since(k.askAt).Round(time.Millisecond))
		assert.False(t, time.Now().Before(k.askAt), "%s: asked before 5/6 of the validity", k.name)
		assert.Equal(t, k.csr, asked.Spec.CSR, "%s: the Tenant's or slice's CSR, byte for byte", k.name)
		assert.Equal(t, der, asked.Spec.PublicKey, "%s: the key as PKIX DER, as Liqo v1.0–v1.1", k.name)
		assert.NotEmpty(t, asked.Annotations[kube.RenewAskedAnnotation])
		if k.slice != "" {
			assert.Equal(t, authv1beta1.ResourceSliceIdentityType, asked.Spec.IdentityType)
			assert.Equal(t, &corev1.LocalObjectReference{Name: k.slice}, asked.Spec.ResourceSliceRef)
		} else {
			assert.Equal(t, authv1beta1.ControlPlaneIdentityType, asked.Spec.IdentityType)
		}
		waitEvent(t, c, authv1beta1.IdentityKind, consNS, k.name, controller.ReasonRenewalAsked)
		ev := waitEvent(t, c, authv1beta1.IdentityKind, consNS, k.name, controller.ReasonCertificateNotRenewed)
		assert.Equal(t, corev1.EventTypeWarning, ev.Type)
		assert.Contains(t, ev.Message, "delete Secret "+k.cache+" in namespace "+provNS)
	}

	// The provider answers: the Tenant's certificate, renewed meanwhile,
	// in the Renew; the slice's, renewed now, in the slice.
	stopProvider()
	runManager(t, p, controller.Options{Provider: true})
	secrets := c.Kube.CoreV1().Secrets(consNS)
	for _, k := range identities {
		beforeExpiry, cancel := context.WithDeadline(t.Context(), k.first.NotAfter)
		renewedSecret, err := kube.WaitFor(beforeExpiry, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(kube.KubeconfigSecretName(k.name))),
			"kubeconfig rewritten", func(s *corev1.Secret) (bool, error) {
				return kubeconfigCertificate(t, s).NotAfter.After(k.first.NotAfter), nil
			})
		cancel()
		require.NoError(t, err, "%s: the kubeconfig Secret was not rewritten before the first certificate expired", k.name)
		renewed := kubeconfigCertificate(t, renewedSecret)
		t.Logf("%s: kubeconfig rewritten %s before the old certificate expired", k.name, time.Until(k.first.NotAfter).Round(time.Second))
		assert.True(t, k.first.PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(renewed.PublicKey), "same key, new certificate")
		cfg, err := clientcmd.RESTConfigFromKubeConfig(renewedSecret.Data[kube.KubeconfigField])
		require.NoError(t, err)
		remote, err := kube.NewCluster(cfg, "")
		require.NoError(t, err)
		user, groups, err := remote.WhoAmI(labtest.Context(t))
		require.NoError(t, err)
		if k.slice != "" {
			assert.Equal(t, kube.ResourceSliceUser(k.slice, consumerID), user)
			assert.Contains(t, groups, consumerID)
		} else {
			assert.Equal(t, consumerID, user)
		}
	}
	local := c.Liqo.Renews(consNS)
	require.NoError(t, kube.WaitForDeletion(labtest.Context(t), kube.ListWatch(local.List, local.Watch, kube.ByName(sliceName)), &authv1beta1.Renew{},
		"the slice's Renew, once renewed"))
}

// askedIdentity is an Identity whose renewal the consumer asks for.
type askedIdentity struct {
	name, cache, slice string
	csr                []byte // the Tenant's or slice's
	first              *x509.Certificate
	askAt              time.Time
}

//go:build cluster

package liqorenewal_test

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

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/realliqov1"
)

// testTimeout bounds one test: a handshake and a ResourceSlice, then the
// renewals, each bounded by the expiry of the certificate it replaces.
const testTimeout = 6 * time.Minute

// A Liqo v1.2.0 provider renews the certificates of this project's
// consumer: its Tenant controller renews the control-plane certificate at
// 2/3 of its life and its remote renewer answers the Renew our consumer
// replicated; its remote ResourceSlice controller renews the slice's. Our
// consumer brings both back and rewrites both kubeconfig Secrets before the
// old certificates expire; the new ones get in.
func TestLiqoProviderRenewsOurConsumer(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	const liqoID, ourID, slice = "liqo-renew-provider", "ours-renew-consumer", "ours-renews"
	provider := liqotest.LiqoCluster(t, ctx, cs[0], liqoID, true, false)
	consumer := liqotest.OurCluster(t, ctx, cs[1], ourID)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	_, err = flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: slice, ProviderID: liqoID, CPU: "1"},
		flows.SliceOptions{Wait: true, Provider: provider}, nil)
	require.NoError(t, err)
	consNS := kube.TenantNamespaceName(liqoID)
	controlPlane := firstKubeconfig(t, ctx, consumer, consNS, kube.KubeconfigSecretName(res.Identity.Name))
	sliceKubeconfig := firstKubeconfig(t, ctx, consumer, consNS, kube.KubeconfigSecretName(kube.ResourceSliceIdentityName(slice)))

	// Our consumer's controllers, as liqo-auth-controller runs them.
	liqotest.RunOurManager(t, ctx, consumer, controller.Options{Consumer: true})

	renewed := controlPlane.waitRenewed(t, ctx)
	user, _ := liqotest.WhoAmI(t, ctx, renewed)
	assert.Equal(t, ourID, user)
	renewedSlice := sliceKubeconfig.waitRenewed(t, ctx)
	user, groups := liqotest.WhoAmI(t, ctx, renewedSlice)
	assert.Equal(t, kube.ResourceSliceUser(slice, ourID), user)
	assert.Contains(t, groups, ourID)

	// Liqo renewed them: its remote renewer answered our replicated Renew,
	// and the Tenant and slice statuses are its own.
	provNS := kube.TenantNamespaceName(ourID)
	renew, err := provider.Liqo.Renews(provNS).Get(ctx, res.Identity.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(renew), liqotest.LiqoManager+"/status")
	assert.Equal(t, authv1beta1.RenewSpec{ConsumerClusterID: ourID, IdentityType: authv1beta1.ControlPlaneIdentityType}, renew.Spec)
	tenant, err := provider.Liqo.Tenants(provNS).Get(ctx, res.Tenant.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(tenant), liqotest.LiqoManager+"/status")
	remoteSlice, err := provider.Liqo.ResourceSlices(provNS).Get(ctx, slice, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(remoteSlice), liqotest.LiqoManager+"/status")
}

// This project's provider renews the certificates of a Liqo v1.2.0
// consumer: our Tenant reconciler renews the control-plane certificate and
// answers the Renew Liqo's local renewer made, which Liqo's crd-replicator
// copied to us; our ResourceSlice reconciler renews the slice's. The
// replicator brings both back, Liqo's local renewer and identity creator
// update the Identities and Liqo's Identity controller rewrites both
// kubeconfig Secrets before the old certificates expire; the new ones get
// in.
func TestOurProviderRenewsLiqoConsumer(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	const liqoID, ourID, slice = "liqo-renew-consumer", "ours-renew-provider", "liqo-renews"
	consumer := liqotest.LiqoCluster(t, ctx, cs[0], liqoID, false, true)
	provider := liqotest.OurCluster(t, ctx, cs[1], ourID)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	realliqov1.StartReplicator(t, cs[0].KubeconfigPath, realliqov1.ReplicatorOptions{ClusterID: liqoID})
	liqotest.RunOurManager(t, ctx, provider, controller.Options{Provider: true, APIServerOverride: cs[1].Config.Host})

	consNS := kube.TenantNamespaceName(ourID)
	controlPlane := firstKubeconfig(t, ctx, consumer, consNS, kube.KubeconfigSecretName(res.Identity.Name))
	_, err = consumer.Liqo.ResourceSlices(consNS).Create(ctx, kube.ForgeResourceSlice(slice, consNS, ourID, authv1beta1.ResourceSliceClassDefault,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}, false), metav1.CreateOptions{})
	require.NoError(t, err)
	liqotest.WaitSlice(t, ctx, consumer, consNS, slice, "our provider's answer, replicated back", liqotest.SliceAccepted)
	_, first := liqotest.WaitIdentityKubeconfig(t, ctx, consumer, consNS, kube.ResourceSliceIdentityName(slice))
	sliceKubeconfig := kubeconfigOf(t, consumer, first)

	renewed := controlPlane.waitRenewed(t, ctx)
	user, _ := liqotest.WhoAmI(t, ctx, renewed)
	assert.Equal(t, liqoID, user)
	renewedSlice := sliceKubeconfig.waitRenewed(t, ctx)
	user, groups := liqotest.WhoAmI(t, ctx, renewedSlice)
	assert.Equal(t, kube.ResourceSliceUser(slice, liqoID), user)
	assert.Contains(t, groups, liqoID)

	// Liqo's own machinery carried it: the replicator wrote the Renew
	// status back, and Liqo's consumer controllers the Identities.
	renew, err := consumer.Liqo.Renews(consNS).Get(ctx, res.Identity.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(renew), liqotest.ReplicatorManager+"/status")
	assert.Contains(t, liqotest.Managers(renew), liqotest.LiqoManager+"/", "Liqo's local renewer made the Renew")
	for _, name := range []string{res.Identity.Name, kube.ResourceSliceIdentityName(slice)} {
		id, err := consumer.Liqo.Identities(consNS).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, liqotest.Managers(id), liqotest.LiqoManager+"/", "identity %s", name)
	}
}

// kubeconfigSecret is a kubeconfig Secret and the certificate it held
// first.
type kubeconfigSecret struct {
	c                *kube.Cluster
	namespace, name  string
	first            *x509.Certificate
	renewAt, expires time.Time
}

// firstKubeconfig reads a kubeconfig Secret and its certificate.
func firstKubeconfig(t *testing.T, ctx context.Context, c *kube.Cluster, namespace, name string) *kubeconfigSecret {
	t.Helper()
	s, err := c.Kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	return kubeconfigOf(t, c, s)
}

func kubeconfigOf(t *testing.T, c *kube.Cluster, s *corev1.Secret) *kubeconfigSecret {
	t.Helper()
	cert := liqotest.KubeconfigCertificate(t, s)
	k := &kubeconfigSecret{c: c, namespace: s.Namespace, name: s.Name, first: cert,
		renewAt: kube.RenewalTime(cert.NotBefore, cert.NotAfter), expires: cert.NotAfter}
	t.Logf("%s/%s: certificate valid %s → %s, renewal due %s (in %s)", s.Namespace, s.Name, cert.NotBefore.Format(time.TimeOnly),
		cert.NotAfter.Format(time.TimeOnly), k.renewAt.Format(time.TimeOnly), time.Until(k.renewAt).Round(time.Second))
	require.True(t, k.renewAt.Before(k.expires), "the lab must issue short certificates (SigningDuration %s)", signingDuration)
	return k
}

// waitRenewed watches the Secret until it holds another certificate for
// the same key that lasts longer, before the first one expires, and
// returns it.
func (k *kubeconfigSecret) waitRenewed(t *testing.T, ctx context.Context) *corev1.Secret {
	t.Helper()
	beforeExpiry, cancel := context.WithDeadline(ctx, k.expires)
	defer cancel()
	secrets := k.c.Kube.CoreV1().Secrets(k.namespace)
	s, err := kube.WaitFor(beforeExpiry, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(k.name)), "kubeconfig "+k.name+" rewritten",
		func(s *corev1.Secret) (bool, error) {
			cert := liqotest.KubeconfigCertificate(t, s)
			return cert.NotAfter.After(k.first.NotAfter) && cert.SerialNumber.Cmp(k.first.SerialNumber) != 0, nil
		})
	require.NoError(t, err, "%s/%s was not rewritten before its first certificate expired (%s)", k.namespace, k.name, k.expires.Format(time.TimeOnly))
	renewed := liqotest.KubeconfigCertificate(t, s)
	t.Logf("%s/%s rewritten %s after the renewal point, %s before the old certificate expired; new one valid until %s",
		k.namespace, k.name, time.Since(k.renewAt).Round(time.Millisecond), time.Until(k.expires).Round(time.Second), renewed.NotAfter.Format(time.TimeOnly))
	assert.Equal(t, k.first.Subject.CommonName, renewed.Subject.CommonName)
	assert.True(t, k.first.PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(renewed.PublicKey), "same key, new certificate")
	return s
}

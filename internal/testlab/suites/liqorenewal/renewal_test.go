//go:build cluster

package liqorenewal_test

import (
	"context"
	"crypto"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// testTimeout bounds one test of one release: a handshake and a
// ResourceSlice, then the renewals, each bounded by the expiry of the
// certificate it replaces.
const testTimeout = 6 * time.Minute

// releaseID is a cluster ID of one release's test ("v1.1.2" ->
// "<prefix>-v1-1-2"): the releases take turns on the same lab clusters.
func releaseID(prefix, release string) string {
	return prefix + "-" + strings.ReplaceAll(release, ".", "-")
}

// A real Liqo provider of each release renews the certificates of this
// project's consumer, run as liqo-auth-controller runs it.
//
// Liqo v1.2.0 renews by itself: its Tenant controller renews the
// control-plane certificate at 2/3 of its life and its remote renewer
// answers the Renew our consumer replicated; its remote ResourceSlice
// controller renews the slice's. Our consumer brings both back and
// rewrites both kubeconfig Secrets before the old certificates expire.
//
// Liqo v1.0.3 and v1.1.2 never renew by themselves, and answer a Renew
// with the certificate they cached when they first signed (Secrets
// liqo-remote-certificate and liqo-remote-certificate-<slice>), whatever
// its CSR. Our consumer asks at 5/6 of the validity, with the Tenant's or
// the slice's CSR in a Renew, and at the next ask warns on the Identity
// that the provider's administrator must delete that Secret; once done
// (here by the test), the next ask gets a new certificate signed from that
// CSR, which comes back in the Renew's status (control plane) or the
// slice's (slice), and our consumer applies it before the old one
// expires; the provider's caches stay consistent with the Tenant and the
// slice. The new certificates get in.
func TestLiqoProviderRenewsOurConsumer(t *testing.T) {
	for _, release := range realliqov1.Releases {
		t.Run(release, func(t *testing.T) { liqoProviderRenewsOurConsumer(t, release) })
	}
}

func liqoProviderRenewsOurConsumer(t *testing.T, release string) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	// Slice names are unique on a consumer: the previous release's tenant
	// namespace may still be going.
	liqoID, ourID, slice := releaseID("liqo-renew-provider", release), releaseID("ours-renew-consumer", release), releaseID("ours-renews", release)
	provider := liqotest.LiqoReleaseCluster(t, ctx, cs[0], release, liqoID, true, false)
	consumer := liqotest.OurCluster(t, ctx, cs[1], ourID)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	_, err = flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: slice, ProviderID: liqoID, CPU: "1"},
		flows.SliceOptions{Wait: true, Provider: provider}, nil)
	require.NoError(t, err)
	consNS, provNS := kube.TenantNamespaceName(liqoID), kube.TenantNamespaceName(ourID)
	sliceIdentity := kube.ResourceSliceIdentityName(slice)
	controlPlane := firstKubeconfig(t, ctx, consumer, consNS, kube.KubeconfigSecretName(res.Identity.Name))
	sliceKubeconfig := firstKubeconfig(t, ctx, consumer, consNS, kube.KubeconfigSecretName(sliceIdentity))

	// Our consumer's controllers, as liqo-auth-controller runs them.
	liqotest.RunOurManager(t, ctx, consumer, controller.Options{Consumer: true})
	forgetPeer(t, consumer, liqoID)

	if !realliqov1.ProviderRenews(release) {
		// What the provider's administrator is told to do, and does.
		for _, k := range []struct {
			identity, cache string
			expires         time.Time
		}{
			{res.Identity.Name, kube.RemoteCertSecretName, controlPlane.expires},
			{sliceIdentity, kube.ResourceSliceCertSecretName(slice), sliceKubeconfig.expires},
		} {
			ev := waitEventBefore(t, ctx, k.expires, consumer, authv1beta1.IdentityKind, consNS, k.identity, controller.ReasonCertificateNotRenewed)
			assert.Contains(t, ev.Message, "delete Secret "+k.cache+" in namespace "+provNS)
			t.Logf("Identity %s warned %s before expiry: %s", k.identity, time.Until(k.expires).Round(time.Second), ev.Message)
			require.NoError(t, provider.Kube.CoreV1().Secrets(provNS).Delete(ctx, k.cache, metav1.DeleteOptions{}))
		}
	}
	renewed := controlPlane.waitRenewed(t, ctx)
	user, _ := liqotest.WhoAmI(t, ctx, renewed)
	assert.Equal(t, ourID, user)
	renewedSlice := sliceKubeconfig.waitRenewed(t, ctx)
	user, groups := liqotest.WhoAmI(t, ctx, renewedSlice)
	assert.Equal(t, kube.ResourceSliceUser(slice, ourID), user)
	assert.Contains(t, groups, ourID)

	// Liqo renewed them: its remote renewer answered our Renew, and the
	// Tenant and slice statuses are its own.
	renew, err := provider.Liqo.Renews(provNS).Get(ctx, res.Identity.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(renew), liqotest.LiqoManager+"/status", "Liqo answered our Renew")
	tenant, err := provider.Liqo.Tenants(provNS).Get(ctx, res.Tenant.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(tenant), liqotest.LiqoManager+"/status")
	remoteSlice, err := provider.Liqo.ResourceSlices(provNS).Get(ctx, slice, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, liqotest.Managers(remoteSlice), liqotest.LiqoManager+"/status")
	if realliqov1.ProviderRenews(release) {
		assert.Equal(t, authv1beta1.RenewSpec{ConsumerClusterID: ourID, IdentityType: authv1beta1.ControlPlaneIdentityType}, renew.Spec)
		return
	}
	// Liqo signed the CSRs of our Renews, the Tenant's and the slice's
	// own: its caches agree with them, else their next reconcile fails.
	for cache, csr := range map[string][]byte{kube.RemoteCertSecretName: tenant.Spec.CSR, kube.ResourceSliceCertSecretName(slice): remoteSlice.Spec.CSR} {
		s, err := provider.Kube.CoreV1().Secrets(provNS).Get(ctx, cache, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, csr, s.Data[kube.RemoteCertCSRField], "Secret %s", cache)
	}
}

// This project's provider renews the certificates of a real Liqo consumer
// of each release, whose crd-replicator copies its Renews and slices to us.
// Our Tenant and ResourceSlice reconcilers renew the certificates at 2/3 of
// their life and we answer the Renews with them.
//
// Liqo v1.2.0's local renewer and identity creator update both Identities
// and its Identity controller rewrites both kubeconfig Secrets before the
// old certificates expire.
//
// Liqo v1.0.3 and v1.1.2 ask at 2/3 with Renews carrying a CSR, made again
// and again; we answer each with the renewed Tenant certificate (v1.0.3's
// CSR names its provider in the CN: one InvalidCSR Warning says so, and it
// is not signed). Their identity creator renews the slice's Identity from
// the slice status; but they never read a Renew's answer, so their
// control-plane kubeconfig keeps its first certificate, whatever the
// provider does (protocol.md §10.2).
func TestOurProviderRenewsLiqoConsumer(t *testing.T) {
	for _, release := range realliqov1.Releases {
		t.Run(release, func(t *testing.T) { ourProviderRenewsLiqoConsumer(t, release) })
	}
}

func ourProviderRenewsLiqoConsumer(t *testing.T, release string) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	liqoID, ourID, slice := releaseID("liqo-renew-consumer", release), releaseID("ours-renew-provider", release), releaseID("liqo-renews", release)
	consumer := liqotest.LiqoReleaseCluster(t, ctx, cs[0], release, liqoID, false, true)
	provider := liqotest.OurCluster(t, ctx, cs[1], ourID)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	realliqov1.StartReplicator(t, cs[0].KubeconfigPath, realliqov1.ReplicatorOptions{Release: release, ClusterID: liqoID})
	liqotest.RunOurManager(t, ctx, provider, controller.Options{Provider: true, APIServerOverride: cs[1].Config.Host})
	forgetPeer(t, provider, liqoID)

	consNS, provNS := kube.TenantNamespaceName(ourID), kube.TenantNamespaceName(liqoID)
	controlPlane := firstKubeconfig(t, ctx, consumer, consNS, kube.KubeconfigSecretName(res.Identity.Name))
	_, err = consumer.Liqo.ResourceSlices(consNS).Create(ctx, kube.ForgeResourceSlice(slice, consNS, ourID, authv1beta1.ResourceSliceClassDefault,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}, false), metav1.CreateOptions{})
	require.NoError(t, err)
	liqotest.WaitSlice(t, ctx, consumer, consNS, slice, "our provider's answer, replicated back", liqotest.SliceAccepted)
	_, first := liqotest.WaitIdentityKubeconfig(t, ctx, consumer, consNS, kube.ResourceSliceIdentityName(slice))
	sliceKubeconfig := kubeconfigOf(t, consumer, first)

	if !realliqov1.ProviderRenews(release) {
		// Liqo's loop of Renews with a CSR, answered with the renewed certificate.
		renews := provider.Liqo.Renews(provNS)
		asked, err := kube.WaitFor(ctx, kube.ListWatch(renews.List, renews.Watch, kube.ByName(res.Identity.Name)), "Liqo's Renew answered",
			func(r *authv1beta1.Renew) (bool, error) {
				return len(r.Spec.CSR) > 0 && r.Status.AuthParams != nil && controlPlane.renewedBy(t, r.Status.AuthParams.SignedCRT), nil
			})
		require.NoError(t, err)
		assert.Equal(t, authv1beta1.ControlPlaneIdentityType, asked.Spec.IdentityType)
		if strings.HasPrefix(release, "v1.0.") {
			ev := waitEventBefore(t, ctx, controlPlane.expires, provider, authv1beta1.RenewKind, provNS, res.Identity.Name, controller.ReasonInvalidCSR)
			assert.Contains(t, ev.Message, "Liqo v1.0 consumer names its provider")
		}
		renewedSlice := sliceKubeconfig.waitRenewed(t, ctx)
		user, groups := liqotest.WhoAmI(t, ctx, renewedSlice)
		assert.Equal(t, kube.ResourceSliceUser(slice, liqoID), user)
		assert.Contains(t, groups, liqoID)
		// Nothing in Liqo v1.0–v1.1 reads the answer.
		s, err := consumer.Kube.CoreV1().Secrets(consNS).Get(ctx, controlPlane.name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, controlPlane.first.SerialNumber, liqotest.KubeconfigCertificate(t, s).SerialNumber,
			"Liqo %s applied a Renew's answer: update protocol.md §10.2", release)
		return
	}
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

// forgetPeer deletes, when the test ends and before our controllers stop,
// our cluster's tenant namespace for the peer: the next release's test
// runs other controllers on the same cluster, which would go on renewing
// (provider) or asking (consumer) for this one.
func forgetPeer(t *testing.T, ours *kube.Cluster, peerID string) {
	t.Cleanup(func() {
		err := ours.Kube.CoreV1().Namespaces().Delete(context.Background(), kube.TenantNamespaceName(peerID), metav1.DeleteOptions{})
		if err != nil && !kube.IsNotFound(err) {
			t.Errorf("deleting the tenant namespace of %s: %v", peerID, err)
		}
	})
}

// waitEventBefore waits for an Event with reason on an object, until
// deadline at the latest.
func waitEventBefore(t *testing.T, ctx context.Context, deadline time.Time, c *kube.Cluster, kind, namespace, name, reason string) *corev1.Event {
	t.Helper()
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return liqotest.WaitEvent(t, ctx, c, kind, namespace, name, reason)
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

// renewedBy says whether certPEM replaces the first certificate: another
// one, lasting longer.
func (k *kubeconfigSecret) renewedBy(t *testing.T, certPEM []byte) bool {
	t.Helper()
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	require.NoError(t, err)
	return k.replacedBy(cert)
}

func (k *kubeconfigSecret) replacedBy(cert *x509.Certificate) bool {
	return cert.NotAfter.After(k.first.NotAfter) && cert.SerialNumber.Cmp(k.first.SerialNumber) != 0
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
			return k.replacedBy(liqotest.KubeconfigCertificate(t, s)), nil
		})
	require.NoError(t, err, "%s/%s was not rewritten before its first certificate expired (%s)", k.namespace, k.name, k.expires.Format(time.TimeOnly))
	renewed := liqotest.KubeconfigCertificate(t, s)
	t.Logf("%s/%s rewritten %s after the renewal point, %s before the old certificate expired; new one valid until %s",
		k.namespace, k.name, time.Since(k.renewAt).Round(time.Millisecond), time.Until(k.expires).Round(time.Second), renewed.NotAfter.Format(time.TimeOnly))
	assert.Equal(t, k.first.Subject.CommonName, renewed.Subject.CommonName)
	assert.True(t, k.first.PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(renewed.PublicKey), "same key, new certificate")
	return s
}

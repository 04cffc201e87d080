//go:build cluster

package renewaltest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/x509"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

const (
	providerID = "renew-provider"
	consumerID = "renew-consumer"
)

// The provider-driven renewal (§10.2) with real 3-minute certificates: the
// provider renews the Tenant's certificate at 2/3 of its life, the Renew
// carries it to the consumer, the consumer's kubeconfig Secret is rewritten
// before the old certificate expires, the Identity says when, and once the
// old certificate is dead the Secret still gets the consumer in.
func TestProviderDrivenRenewal(t *testing.T) {
	clusters := testLab.Clusters(t)
	p, c := initCluster(t, clusters[0].Config, providerID), initCluster(t, clusters[1].Config, consumerID)
	controller.RegisterMetrics()
	runManager(t, p, controller.Options{Provider: true})
	runManager(t, c, controller.Options{Consumer: true})

	consNS, identityName := authenticate(t, p, c)
	secretName := kube.KubeconfigSecretName(identityName)
	secrets := c.Kube.CoreV1().Secrets(consNS)
	first, err := secrets.Get(labtest.Context(t), secretName, metav1.GetOptions{})
	require.NoError(t, err)
	old := kubeconfigCertificate(t, first)
	renewAt := kube.RenewalTime(old.NotBefore, old.NotAfter)
	t.Logf("first certificate: valid %s → %s, renewal due %s (in %s), expires in %s", old.NotBefore.Format(time.TimeOnly),
		old.NotAfter.Format(time.TimeOnly), renewAt.Format(time.TimeOnly), time.Until(renewAt).Round(time.Second), time.Until(old.NotAfter).Round(time.Second))
	require.True(t, renewAt.Before(old.NotAfter) && time.Now().Before(renewAt),
		"the lab must issue certificates whose 2/3 point is ahead (SigningDuration %s)", signingDuration)

	// Rewritten with a newer certificate before the old one expires.
	beforeExpiry, cancel := context.WithDeadline(t.Context(), old.NotAfter)
	defer cancel()
	renewedSecret, err := kube.WaitFor(beforeExpiry, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(secretName)), "kubeconfig rewritten",
		func(s *corev1.Secret) (bool, error) {
			return !bytes.Equal(s.Data[kube.KubeconfigField], first.Data[kube.KubeconfigField]), nil
		})
	require.NoError(t, err, "the kubeconfig Secret was not rewritten before the first certificate expired")
	rewrittenAt := time.Now()
	renewed := kubeconfigCertificate(t, renewedSecret)
	t.Logf("kubeconfig rewritten %s after the renewal point, %s before the old certificate expired; new one valid until %s",
		rewrittenAt.Sub(renewAt).Round(time.Millisecond), old.NotAfter.Sub(rewrittenAt).Round(time.Second), renewed.NotAfter.Format(time.TimeOnly))
	assert.True(t, renewed.NotAfter.After(old.NotAfter))
	assert.NotEqual(t, old.SerialNumber, renewed.SerialNumber)
	assert.Equal(t, consumerID, renewed.Subject.CommonName)
	assert.True(t, old.PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(renewed.PublicKey), "same key, new certificate")

	// The Identity says when, and why.
	identity, err := c.Liqo.Identities(consNS).Get(labtest.Context(t), identityName, metav1.GetOptions{})
	require.NoError(t, err)
	last, err := time.Parse(time.RFC3339, identity.Annotations[kube.LastRenewalAnnotation])
	require.NoError(t, err, "annotation %s", kube.LastRenewalAnnotation)
	assert.WithinDuration(t, rewrittenAt, last, 30*time.Second)
	ev := waitEvent(t, c, authv1beta1.IdentityKind, consNS, identityName, controller.ReasonIdentityRenewed)
	assert.Contains(t, ev.Message, providerID)
	renew, err := c.Liqo.Renews(consNS).Get(labtest.Context(t), identityName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, authv1beta1.RenewSpec{ConsumerClusterID: consumerID, IdentityType: authv1beta1.ControlPlaneIdentityType}, renew.Spec)
	assert.Equal(t, identity.UID, metav1.GetControllerOf(renew).UID)

	// The consumer's metrics saw it.
	assert.GreaterOrEqual(t, metricValue(t, "liqo_auth_identity_renewals_total", map[string]string{"provider": providerID}), 1.0)
	assert.Greater(t, metricValue(t, "liqo_auth_identity_certificate_expiry_timestamp_seconds",
		map[string]string{"provider": providerID, "identity": consNS + "/" + identityName}), float64(old.NotAfter.Unix()))

	// `verify` shows both.
	v, err := flows.Verify(labtest.Context(t), c, providerID, nil)
	require.NoError(t, err)
	assert.Equal(t, last, v.LastRenewal)
	assert.True(t, v.CertificateNotAfter.After(old.NotAfter), "verify shows the renewed certificate's expiry")

	// Once the first certificate is dead, the Secret still gets in.
	select {
	case <-time.After(time.Until(old.NotAfter) + time.Second):
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	current, err := secrets.Get(labtest.Context(t), secretName, metav1.GetOptions{})
	require.NoError(t, err)
	cert := kubeconfigCertificate(t, current)
	assert.True(t, time.Now().After(old.NotAfter))
	assert.True(t, cert.NotAfter.After(time.Now()), "the kubeconfig holds a living certificate")
	cfg, err := clientcmd.RESTConfigFromKubeConfig(current.Data[kube.KubeconfigField])
	require.NoError(t, err)
	remote, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	user, _, err := remote.WhoAmI(labtest.Context(t))
	require.NoError(t, err)
	assert.Equal(t, consumerID, user)

	// And the dead one does not (the test proves what it claims).
	oldCfg, err := clientcmd.RESTConfigFromKubeConfig(first.Data[kube.KubeconfigField])
	require.NoError(t, err)
	oldRemote, err := kube.NewCluster(oldCfg, "")
	require.NoError(t, err)
	_, _, err = oldRemote.WhoAmI(labtest.Context(t))
	assert.Error(t, err, "the first certificate expired")
}

func initCluster(t *testing.T, cfg *rest.Config, id string) *kube.Cluster {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 200, 400
	c, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	_, err = c.Init(labtest.Context(t), kube.InitOptions{ClusterID: id})
	require.NoError(t, err)
	return c
}

// runManager runs the reconcilers of one side until the test ends.
func runManager(t *testing.T, c *kube.Cluster, o controller.Options) {
	t.Helper()
	t.Cleanup(startManager(t, c, o))
}

// startManager runs the reconcilers of one side until the returned stop
// is called (once).
func startManager(t *testing.T, c *kube.Cluster, o controller.Options) (stop func()) {
	t.Helper()
	m, err := controller.New(c, o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	stop = func() {
		cancel()
		require.NoError(t, <-done)
	}
	select {
	case <-m.Synced():
	case err := <-done:
		t.Fatalf("manager stopped before syncing: %v", err)
	case <-labtest.Context(t).Done():
		t.Fatal("manager caches did not sync")
	}
	return stop
}

// authenticate runs the handshake, both Managers doing their parts, up to
// the consumer's kubeconfig Secret; it returns the consumer's tenant
// namespace and its Identity's name.
func authenticate(t *testing.T, p, c *kube.Cluster) (namespace, identity string) {
	t.Helper()
	ctx := labtest.Context(t)
	provNS, _, err := p.EnsureTenantNamespace(ctx, consumerID)
	require.NoError(t, err)
	consNS, _, err := c.EnsureTenantNamespace(ctx, providerID)
	require.NoError(t, err)
	_, err = p.EnsureNonceSecret(ctx, provNS.Name, consumerID)
	require.NoError(t, err)
	nonce := waitSecret(t, p, provNS.Name, kube.NonceSecretName, kube.NonceField)
	_, _, err = c.EnsureSignedNonceSecret(ctx, consNS.Name, providerID, string(nonce))
	require.NoError(t, err)
	signature := waitSecret(t, c, consNS.Name, kube.SignedNonceSecretName, kube.SignedNonceField)
	key, _, err := c.PrivateKey(ctx)
	require.NoError(t, err)
	tenant, err := kube.ForgeTenant(consumerID, provNS.Name, key, signature, "")
	require.NoError(t, err)
	_, _, err = p.ApplyTenant(ctx, tenant)
	require.NoError(t, err)
	tenants := p.Liqo.Tenants(provNS.Name)
	// The tests of this package share the clusters: a Tenant left by the
	// previous one may hold a certificate already past its 2/3 point,
	// which the provider renews at once.
	accepted, err := kube.WaitFor(ctx, kube.ListWatch(tenants.List, tenants.Watch, kube.ByName(consumerID)), "tenant status",
		func(t *authv1beta1.Tenant) (bool, error) {
			if t.Status.AuthParams == nil || len(t.Status.AuthParams.SignedCRT) == 0 {
				return false, nil
			}
			at, err := kube.CertificateRenewalTime(t.Status.AuthParams.SignedCRT)
			return err == nil && time.Now().Before(at), nil
		})
	require.NoError(t, err)
	id, err := kube.ForgeIdentity(providerID, consNS.Name, accepted)
	require.NoError(t, err)
	_, _, err = c.ApplyIdentity(ctx, id)
	require.NoError(t, err)
	identities := c.Liqo.Identities(consNS.Name)
	_, err = kube.WaitFor(ctx, kube.ListWatch(identities.List, identities.Watch, kube.ByName(id.Name)), "identity status",
		func(id *authv1beta1.Identity) (bool, error) { return id.Status.KubeconfigSecretRef != nil, nil })
	require.NoError(t, err)
	return consNS.Name, id.Name
}

// waitSecret waits for a Secret's field to be filled and returns it.
func waitSecret(t *testing.T, c *kube.Cluster, namespace, name, field string) []byte {
	t.Helper()
	secrets := c.Kube.CoreV1().Secrets(namespace)
	s, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(name)), "secret "+name,
		func(s *corev1.Secret) (bool, error) { return len(s.Data[field]) > 0, nil })
	require.NoError(t, err)
	return s.Data[field]
}

func waitEvent(t *testing.T, c *kube.Cluster, kind, namespace, name, reason string) *corev1.Event {
	t.Helper()
	events := c.Kube.CoreV1().Events(namespace)
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "reason": reason}.String()
	ev, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(events.List, events.Watch, func(o *metav1.ListOptions) { o.FieldSelector = sel }),
		"event "+reason, func(*corev1.Event) (bool, error) { return true, nil })
	require.NoError(t, err)
	return ev
}

func kubeconfigCertificate(t *testing.T, s *corev1.Secret) *x509.Certificate {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	cert, err := authcrypto.ParseCertificatePEM(cfg.CertData)
	require.NoError(t, err)
	return cert
}

// metricValue reads one series of the controllers' registry.
func metricValue(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := controller.Registry.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if matches(m, labels) {
				if m.GetCounter() != nil {
					return m.GetCounter().GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no series %s%v", name, labels)
	return 0
}

func matches(m *dto.Metric, labels map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := labels[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(labels)
}

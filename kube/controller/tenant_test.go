//go:build cluster

package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A Tenant that fails a check gets a Warning Event with Liqo's reason and
// no status.
func TestTenantRefusals(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true})

	refused := func(t *testing.T, tn *authv1beta1.Tenant, reason, message string) {
		t.Helper()
		_, _, err := p.ApplyTenant(labtest.Context(t), tn)
		require.NoError(t, err)
		ev := waitEvent(t, p, authv1beta1.TenantKind, tn.Namespace, tn.Name, reason)
		assert.Equal(t, corev1.EventTypeWarning, ev.Type)
		assert.Contains(t, ev.Message, message)
		assert.Equal(t, EventSource, ev.Source.Component)
		got, err := p.Liqo.Tenants(tn.Namespace).Get(labtest.Context(t), tn.Name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, authv1beta1.TenantStatus{}, got.Status)
	}

	t.Run("signature over another nonce", func(t *testing.T) {
		cs := newConsumer(t, "refused-signature")
		ns, _ := cs.prepareNonce(t, p)
		refused(t, cs.tenant(t, ns, "not-the-provider-nonce"), ReasonSignatureVerificationFailed, `signature verification failed for Tenant "refused-signature"`)
	})
	t.Run("CSR for another cluster", func(t *testing.T) {
		cs := newConsumer(t, "refused-csr")
		ns, nonce := cs.prepareNonce(t, p)
		tn := cs.tenant(t, ns, nonce)
		var err error
		tn.Spec.CSR, err = authcrypto.NewCSR(cs.key, "somebody-else")
		require.NoError(t, err)
		refused(t, tn, ReasonInvalidCSR, "invalid common name")
	})
	t.Run("no nonce", func(t *testing.T) {
		cs := newConsumer(t, "refused-no-nonce")
		ns, _, err := p.EnsureTenantNamespace(labtest.Context(t), cs.id)
		require.NoError(t, err)
		refused(t, cs.tenant(t, ns.Name, "never-created"), ReasonNonceNotFound, "refused-no-nonce")
	})
	t.Run("outside a tenant namespace", func(t *testing.T) {
		cs := newConsumer(t, "refused-placement")
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "not-a-tenant-namespace"}}
		_, err := p.Kube.CoreV1().Namespaces().Create(labtest.Context(t), ns, metav1.CreateOptions{})
		require.NoError(t, err)
		refused(t, cs.tenant(t, ns.Name, "whatever"), ReasonInvalidTenant, "tenant namespace")
	})
}

// Reconciling again what is already reconciled writes nothing.
func TestReconcileIsIdempotent(t *testing.T) {
	p := providerCluster(t)
	ctx := labtest.Context(t)
	first, _ := New(p, Options{Provider: true})
	stop := runManager(t, first)
	cs := newConsumer(t, "idempotent")
	tn := cs.handshake(t, p)
	ns := tn.Namespace

	_, ch, err := p.ApplyTenant(ctx, cs.tenant(t, ns, cs.nonce))
	require.NoError(t, err)
	assert.Equal(t, kube.Unchanged, ch.Action, "re-applying the same Tenant")
	stop()

	versions := func() map[string]string {
		get := func(obj metav1.Object, err error) string {
			require.NoError(t, err)
			return obj.GetResourceVersion()
		}
		return map[string]string{
			"tenant":             get(p.Liqo.Tenants(ns).Get(ctx, cs.id, metav1.GetOptions{})),
			"nonce":              get(p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.NonceSecretName, metav1.GetOptions{})),
			"certificate":        get(p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})),
			"rolebinding":        get(p.Kube.RbacV1().RoleBindings(ns).Get(ctx, kube.RoleBindingName(kube.RemoteControlPlaneClusterRole), metav1.GetOptions{})),
			"clusterrolebinding": get(p.Kube.RbacV1().ClusterRoleBindings().Get(ctx, kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, cs.id), metav1.GetOptions{})),
			"namespace":          get(p.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})),
		}
	}
	rerun := func() {
		m, err := New(p, Options{Provider: true})
		require.NoError(t, err)
		log := &syncLog{}
		m.afterSync = log.record
		stop := runManager(t, m)
		defer stop()
		log.waitSync(t, "tenant", ns+"/"+cs.id)
		log.waitSync(t, "nonce-creator", ns+"/"+kube.NonceSecretName)
	}

	before := versions()
	rerun() // a new Manager reconciles everything from its initial list
	assert.Equal(t, before, versions())

	got, err := p.Liqo.Tenants(ns).Get(ctx, cs.id, metav1.GetOptions{})
	require.NoError(t, err)
	got.Annotations = map[string]string{"example.com/touched": "yes"}
	_, err = p.Liqo.Tenants(ns).Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	before = versions()
	rerun() // a Tenant whose metadata changed
	assert.Equal(t, before, versions())
}

// Deleting a Tenant removes its cluster-wide binding and the finalizer;
// the RoleBinding follows its owner (through the garbage collector, which
// notices a new kind of owner only at its next resync, up to 30s later: the
// owner reference is checked instead of waiting for it). Applied again, it
// gets its stored certificate back.
func TestTenantDeletion(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true})
	ctx := labtest.Context(t)
	cs := newConsumer(t, "deleted")
	tn := cs.handshake(t, p)
	crbName := kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, cs.id)
	_, err := p.Kube.RbacV1().ClusterRoleBindings().Get(ctx, crbName, metav1.GetOptions{})
	require.NoError(t, err)

	require.NoError(t, p.Liqo.Tenants(tn.Namespace).Delete(ctx, cs.id, metav1.DeleteOptions{}))
	tenants := p.Liqo.Tenants(tn.Namespace)
	waitGone(t, kube.ListWatch(tenants.List, tenants.Watch, kube.ByName(cs.id)), &authv1beta1.Tenant{}, "Tenant "+cs.id)
	_, err = p.Kube.RbacV1().ClusterRoleBindings().Get(ctx, crbName, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "ClusterRoleBinding %s: %v", crbName, err)
	rb, err := p.Kube.RbacV1().RoleBindings(tn.Namespace).Get(ctx, kube.RoleBindingName(kube.RemoteControlPlaneClusterRole), metav1.GetOptions{})
	if err == nil {
		owner := metav1.GetControllerOf(rb)
		require.NotNil(t, owner)
		assert.Equal(t, tn.UID, owner.UID)
		assert.True(t, *owner.BlockOwnerDeletion)
	} else {
		assert.True(t, kube.IsNotFound(err), "RoleBinding: %v", err)
	}

	// Applied again with the same keys (so the same CSR), it gets the
	// stored certificate back: the cache Secret outlives its Tenant, and
	// as the informer keeps only its sums, it is read live.
	again := cs.handshake(t, p)
	assert.NotEqual(t, tn.UID, again.UID)
	assert.Equal(t, tn.Status.AuthParams.SignedCRT, again.Status.AuthParams.SignedCRT, "the stored certificate reused")
}

// A certificate past 2/3 of its lifetime is replaced by a new one from the
// cluster's CA, in the status and in the cache.
func TestCertificateRenewedPastTwoThirds(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true})
	ctx := labtest.Context(t)
	cs := newConsumer(t, "renewal")
	tn := cs.handshake(t, p)
	ns := tn.Namespace

	old := labtest.SelfSigned(t, cs.key, cs.id, time.Now().Add(-3*time.Hour), time.Now().Add(time.Hour))
	_, err := p.StoreCertificateIn(ctx, ns, kube.RemoteCertSecretName, cs.id, tn.Spec.CSR, old)
	require.NoError(t, err)
	labtest.SetTenantCertificate(t, ctx, p, tn.Namespace, tn.Name, old)

	ev := waitEvent(t, p, authv1beta1.TenantKind, ns, cs.id, ReasonCertificateRenewed)
	assert.Equal(t, corev1.EventTypeNormal, ev.Type)
	got := waitTenant(t, p, ns, cs.id, func(got *authv1beta1.Tenant) bool {
		return statusFilled(got) && string(got.Status.AuthParams.SignedCRT) != string(old)
	})
	cert, err := authcrypto.ParseCertificatePEM(got.Status.AuthParams.SignedCRT)
	require.NoError(t, err)
	assert.Equal(t, cs.id, cert.Subject.CommonName)
	assert.NotEqual(t, cert.Subject.String(), cert.Issuer.String(), "issued by the cluster CA")
	assert.WithinDuration(t, time.Now(), cert.NotBefore, 10*time.Minute)
	cached, err := p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, got.Status.AuthParams.SignedCRT, cached.Data["certificate"])
}

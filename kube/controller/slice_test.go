//go:build cluster

package controller

import (
	"context"
	stdcrypto "crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// waitSlice waits (watching) for a ResourceSlice to satisfy cond.
func waitSlice(t testing.TB, c *kube.Cluster, namespace, name string, cond func(*authv1beta1.ResourceSlice) bool) *authv1beta1.ResourceSlice {
	t.Helper()
	slices := c.Liqo.ResourceSlices(namespace)
	got, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(slices.List, slices.Watch, kube.ByName(name)),
		"resourceslice "+namespace+"/"+name, func(got *authv1beta1.ResourceSlice) (bool, error) { return cond(got), nil })
	require.NoError(t, err)
	return got
}

func sliceDecided(t authv1beta1.ResourceSliceConditionType, s authv1beta1.ResourceSliceConditionStatus) func(*authv1beta1.ResourceSlice) bool {
	return func(rs *authv1beta1.ResourceSlice) bool { return kube.SliceConditionStatus(rs, t) == s }
}

// replicaOf creates on the provider the copy of a consumer's slice asking
// for 2 CPUs and 4Gi, as the consumer's replicator would.
func replicaOf(t testing.TB, p *kube.Cluster, namespace, name, consumer string, csr []byte, class authv1beta1.ResourceSliceClass) *authv1beta1.ResourceSlice {
	t.Helper()
	return replicaAsking(t, p, namespace, name, consumer, csr, class,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")})
}

// replicaAsking is replicaOf asking for resources.
func replicaAsking(t testing.TB, p *kube.Cluster, namespace, name, consumer string, csr []byte, class authv1beta1.ResourceSliceClass, resources corev1.ResourceList) *authv1beta1.ResourceSlice {
	t.Helper()
	rs := &authv1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
			kube.ReplicationLabel: "false", kube.ReplicatedLabel: "true", kube.OriginIDLabel: consumer, kube.RemoteClusterIDLabel: consumer}},
		Spec: authv1beta1.ResourceSliceSpec{ConsumerClusterID: consumer, ProviderClusterID: providerID, Class: class, CSR: csr, Resources: resources},
	}
	created, err := p.Liqo.ResourceSlices(namespace).Create(labtest.Context(t), rs, metav1.CreateOptions{})
	require.NoError(t, err)
	return created
}

// sliceCert is a certificate of key for user cn, signed by key itself.
func sliceCert(t testing.TB, key stdcrypto.Signer, cn string, notBefore, notAfter time.Time) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: notBefore, NotAfter: notAfter, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// rawCSR is a CSR with any subject, bypassing the crypto package's rules.
func rawCSR(t testing.TB, key stdcrypto.Signer, subject pkix.Name) []byte {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// The provider answers replicated slices: a CSR for another slice, another
// group or another key is denied with a Warning and nothing signed; a good
// one gets a certificate for user <slice>-<hash> in group <consumerID> and
// its resources; a cordoned Tenant gets no new resources; a pass over a
// decided slice writes nothing.
func TestResourceSliceProvider(t *testing.T) {
	p := providerCluster(t)
	_, log := startManager(t, p, Options{Provider: true})
	cs := newConsumer(t, "slice-consumer")
	tn := cs.handshake(t, p)
	ns := tn.Status.TenantNamespace
	ctx := labtest.Context(t)
	stranger, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)

	denied := func(t *testing.T, name string, csr []byte, message string) {
		t.Helper()
		replicaOf(t, p, ns, name, cs.id, csr, "")
		got := waitSlice(t, p, ns, name, sliceDecided(authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionDenied))
		// Liqo's words in the condition, the why in a Warning; as Liqo,
		// the resources are decided all the same.
		cond := kube.SliceCondition(got, authv1beta1.ResourceSliceConditionTypeAuthentication)
		assert.Equal(t, kube.SliceAuthenticationDeniedReason, cond.Reason)
		assert.Equal(t, kube.SliceAuthenticationDeniedMessage, cond.Message)
		assert.False(t, cond.LastTransitionTime.IsZero())
		assert.Nil(t, got.Status.AuthParams)
		assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(got, authv1beta1.ResourceSliceConditionTypeResources))
		ev := waitEvent(t, p, authv1beta1.ResourceSliceKind, ns, name, ReasonInvalidCSR)
		assert.Equal(t, corev1.EventTypeWarning, ev.Type)
		assert.Contains(t, ev.Message, message)
		assert.Equal(t, corev1.EventTypeNormal, waitEvent(t, p, authv1beta1.ResourceSliceKind, ns, name, kube.SliceAuthenticationDeniedReason).Type)
		_, err := p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.ResourceSliceCertSecretName(name), metav1.GetOptions{})
		assert.True(t, kube.IsNotFound(err), "nothing signed for a denied slice: %v", err)
	}
	t.Run("CN of another slice", func(t *testing.T) {
		csr, err := authcrypto.NewResourceSliceCSR(cs.key, "another-slice", cs.id)
		require.NoError(t, err)
		denied(t, "wrong-cn", csr, "invalid common name")
	})
	t.Run("O other than the consumer", func(t *testing.T) {
		csr := rawCSR(t, cs.key, pkix.Name{Organization: []string{"liqo.io"}, CommonName: kube.ResourceSliceUser("wrong-o", cs.id)})
		denied(t, "wrong-o", csr, "invalid organization")
	})
	t.Run("another key", func(t *testing.T) {
		csr, err := authcrypto.NewResourceSliceCSR(stranger, "wrong-key", cs.id)
		require.NoError(t, err)
		denied(t, "wrong-key", csr, "invalid public key")
	})

	csr, err := authcrypto.NewResourceSliceCSR(cs.key, "good", cs.id)
	require.NoError(t, err)
	replicaOf(t, p, ns, "good", cs.id, csr, authv1beta1.ResourceSliceClassDefault)
	good := waitSlice(t, p, ns, "good", sliceDecided(authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted))
	assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(good, authv1beta1.ResourceSliceConditionTypeAuthentication))
	require.NotNil(t, good.Status.AuthParams)
	cert, err := authcrypto.ParseCertificatePEM(good.Status.AuthParams.SignedCRT)
	require.NoError(t, err)
	assert.Equal(t, kube.ResourceSliceUser("good", cs.id), cert.Subject.CommonName)
	assert.Equal(t, []string{cs.id}, cert.Subject.Organization)
	assert.True(t, authcrypto.SamePublicKey(cs.key.Public(), cert.PublicKey))
	assert.Equal(t, p.Config.Host, good.Status.AuthParams.APIServer)
	// What it asks, and Liqo's defaults for the rest.
	assertGranted(t, good, "cpu=2,ephemeral-storage=20Gi,memory=4Gi,pods=110")
	cached, err := p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.ResourceSliceCertSecretName("good"), metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, csr, cached.Data[kube.RemoteCertCSRField])
	assert.Equal(t, cs.id, cached.Labels[kube.RemoteClusterIDLabel])
	for typ, want := range map[authv1beta1.ResourceSliceConditionType][2]string{
		authv1beta1.ResourceSliceConditionTypeAuthentication: {kube.SliceAuthenticationAcceptedReason, kube.SliceAuthenticationAcceptedMessage},
		authv1beta1.ResourceSliceConditionTypeResources:      {kube.SliceResourcesAcceptedReason, kube.SliceResourcesAcceptedMessage},
	} {
		c := kube.SliceCondition(good, typ)
		assert.Equal(t, want, [2]string{c.Reason, c.Message}, "Liqo's reason and message")
		assert.Equal(t, want[1], waitEvent(t, p, authv1beta1.ResourceSliceKind, ns, "good", want[0]).Message, "Liqo's Event")
	}
	assert.Empty(t, good.Status.StorageClasses, "nothing offered by default, as Liqo")
	assert.Empty(t, good.Status.NodeLabels)

	t.Run("a pass over a decided slice writes nothing", func(t *testing.T) {
		seen := log.count()
		touched, err := p.Liqo.ResourceSlices(ns).Patch(ctx, "good", types.MergePatchType, []byte(`{"metadata":{"annotations":{"example.com/touch":"1"}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		log.waitSyncAfter(t, seen, "resourceslice-provider", ns+"/good")
		again, err := p.Liqo.ResourceSlices(ns).Get(ctx, "good", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, touched.ResourceVersion, again.ResourceVersion, "no status write")
	})

	t.Run("renewed past 2/3 of its validity", func(t *testing.T) {
		got, err := p.Liqo.ResourceSlices(ns).Get(ctx, "good", metav1.GetOptions{})
		require.NoError(t, err)
		// A certificate for the same user and key, due for renewal.
		old := sliceCert(t, cs.key, kube.ResourceSliceUser("good", cs.id), time.Now().Add(-time.Hour), time.Now().Add(time.Minute))
		got.Status.AuthParams.SignedCRT = old
		_, err = p.Liqo.ResourceSlices(ns).UpdateStatus(ctx, got, metav1.UpdateOptions{})
		require.NoError(t, err)
		renewed := waitSlice(t, p, ns, "good", func(rs *authv1beta1.ResourceSlice) bool {
			return rs.Status.AuthParams != nil && string(rs.Status.AuthParams.SignedCRT) != string(old)
		})
		cert, err := authcrypto.ParseCertificatePEM(renewed.Status.AuthParams.SignedCRT)
		require.NoError(t, err)
		assert.True(t, cert.NotAfter.After(time.Now().Add(time.Hour)))
		assert.Equal(t, kube.ResourceSliceUser("good", cs.id), cert.Subject.CommonName)
		waitEvent(t, p, authv1beta1.ResourceSliceKind, ns, "good", ReasonCertificateRenewed)
		cached, err := p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.ResourceSliceCertSecretName("good"), metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, renewed.Status.AuthParams.SignedCRT, cached.Data[kube.RemoteCertCertificateField])
	})

	t.Run("an invalid CSR after a grant keeps the authParams", func(t *testing.T) {
		// Liqo denies Authentication only: the status keeps the
		// authParams and Resources stay decided.
		before := mustSliceNow(t, p, ns, "good")
		wasAuth := kube.SliceCondition(before, authv1beta1.ResourceSliceConditionTypeAuthentication).LastTransitionTime
		bad, err := authcrypto.NewResourceSliceCSR(cs.key, "not-good", cs.id)
		require.NoError(t, err)
		setSliceCSR(t, p, ns, "good", bad)
		denied := waitSlice(t, p, ns, "good", sliceDecided(authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionDenied))
		assert.Equal(t, before.Status.AuthParams, denied.Status.AuthParams)
		assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(denied, authv1beta1.ResourceSliceConditionTypeResources))
		assert.False(t, kube.SliceCondition(denied, authv1beta1.ResourceSliceConditionTypeAuthentication).LastTransitionTime.Before(&wasAuth))
		setSliceCSR(t, p, ns, "good", before.Spec.CSR)
		again := waitSlice(t, p, ns, "good", sliceDecided(authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionAccepted))
		assert.Equal(t, before.Status.AuthParams, again.Status.AuthParams, "the certificate for this CSR, not a new one")
	})

	t.Run("a new ask updates the grant", func(t *testing.T) {
		// liqoctl create resourceslice again, other amounts (CreateOrUpdate).
		got, err := p.Liqo.ResourceSlices(ns).Get(ctx, "good", metav1.GetOptions{})
		require.NoError(t, err)
		got.Spec.Resources = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourcePods: resource.MustParse("20")}
		_, err = p.Liqo.ResourceSlices(ns).Update(ctx, got, metav1.UpdateOptions{})
		require.NoError(t, err)
		updated := waitSlice(t, p, ns, "good", func(rs *authv1beta1.ResourceSlice) bool {
			return rs.Status.Resources.Cpu().Equal(resource.MustParse("3"))
		})
		// The memory no longer asked for falls back to the default.
		assertGranted(t, updated, "cpu=3,ephemeral-storage=20Gi,memory=8Gi,pods=20")
	})

	t.Run("without amounts, the defaults", func(t *testing.T) {
		csr, err := authcrypto.NewResourceSliceCSR(cs.key, "no-amounts", cs.id)
		require.NoError(t, err)
		replicaAsking(t, p, ns, "no-amounts", cs.id, csr, "", nil)
		got := waitSlice(t, p, ns, "no-amounts", sliceDecided(authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted))
		assertGranted(t, got, "cpu=4,ephemeral-storage=20Gi,memory=8Gi,pods=110")
	})

	t.Run("a plugin class gets a certificate and no Resources decision", func(t *testing.T) {
		csr, err := authcrypto.NewResourceSliceCSR(cs.key, "plugin", cs.id)
		require.NoError(t, err)
		replicaOf(t, p, ns, "plugin", cs.id, csr, "gpu-plugin")
		got := waitSlice(t, p, ns, "plugin", sliceDecided(authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionAccepted))
		assert.Nil(t, kube.SliceCondition(got, authv1beta1.ResourceSliceConditionTypeResources))
		assert.Empty(t, got.Status.Resources)
	})

	t.Run("cordoned Tenant", func(t *testing.T) {
		_, err := p.Liqo.Tenants(ns).Patch(ctx, tn.Name, types.MergePatchType, []byte(`{"spec":{"tenantCondition":"Cordoned"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		t.Cleanup(func() {
			_, _ = p.Liqo.Tenants(ns).Patch(context.Background(), tn.Name, types.MergePatchType, []byte(`{"spec":{"tenantCondition":"Active"}}`), metav1.PatchOptions{})
		})
		csr, err := authcrypto.NewResourceSliceCSR(cs.key, "after-cordon", cs.id)
		require.NoError(t, err)
		replicaOf(t, p, ns, "after-cordon", cs.id, csr, "")
		got := waitSlice(t, p, ns, "after-cordon", sliceDecided(authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionDenied))
		assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(got, authv1beta1.ResourceSliceConditionTypeAuthentication))
		assert.Equal(t, kube.SliceResourcesDeniedReason, kube.SliceCondition(got, authv1beta1.ResourceSliceConditionTypeResources).Reason)
		assert.Empty(t, got.Status.Resources)
		assert.Contains(t, waitEvent(t, p, authv1beta1.ResourceSliceKind, ns, "after-cordon", ReasonResourcesDenied).Message, "is cordoned")
		// What was granted before the cordon stays granted.
		kept, err := p.Liqo.ResourceSlices(ns).Get(ctx, "good", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(kept, authv1beta1.ResourceSliceConditionTypeResources))
	})

	t.Run("drained Tenant", func(t *testing.T) {
		setCondition := func(c authv1beta1.TenantCondition) {
			_, err := p.Liqo.Tenants(ns).Patch(context.Background(), tn.Name, types.MergePatchType,
				[]byte(`{"spec":{"tenantCondition":"`+string(c)+`"}}`), metav1.PatchOptions{})
			require.NoError(t, err)
		}
		setCondition(authv1beta1.TenantConditionDrained)
		t.Cleanup(func() { setCondition(authv1beta1.TenantConditionActive) })
		// The Tenant's drain deletes every slice replicated from the
		// consumer, as Liqo's does (§5.5): what was granted goes.
		waitEvent(t, p, authv1beta1.TenantKind, ns, tn.Name, ReasonResourceSlicesDeleted)
		waitGone(t, kube.ListWatch(p.Liqo.ResourceSlices(ns).List, p.Liqo.ResourceSlices(ns).Watch, kube.ByName("good")), &authv1beta1.ResourceSlice{}, "good")
		// A slice that reaches a drained provider anyway: Liqo denies the
		// resources only, so the consumer keeps the slice's Identity and
		// kubeconfig.
		csr, err := authcrypto.NewResourceSliceCSR(cs.key, "while-drained", cs.id)
		require.NoError(t, err)
		replicaOf(t, p, ns, "while-drained", cs.id, csr, "")
		got := waitSlice(t, p, ns, "while-drained", sliceDecided(authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionDenied))
		assert.Equal(t, kube.SliceResourcesDeniedReason, kube.SliceCondition(got, authv1beta1.ResourceSliceConditionTypeResources).Reason)
		assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(got, authv1beta1.ResourceSliceConditionTypeAuthentication))
		require.NotNil(t, got.Status.AuthParams)
		assert.NotEmpty(t, got.Status.AuthParams.SignedCRT)
		assert.Empty(t, got.Status.Resources)
		assert.Contains(t, waitEvent(t, p, authv1beta1.ResourceSliceKind, ns, "while-drained", ReasonResourcesDenied).Message, "is drained")
		// Active again: granted.
		setCondition(authv1beta1.TenantConditionActive)
		waitSlice(t, p, ns, "while-drained", sliceDecided(authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted))
	})

	t.Run("outside the tenant namespace: skipped, not denied", func(t *testing.T) {
		undecided(t, p, cs, "slices-elsewhere", "elsewhere", ReasonWrongNamespace)
	})
}

// A slice whose consumer has no tenant namespace yet is retried, never
// denied, and decided once the namespace is there.
func TestResourceSliceWaitsForTenantNamespace(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true})
	cs := newConsumer(t, "late-namespace")
	ctx := labtest.Context(t)
	ns := kube.TenantNamespaceName(cs.id)
	undecided(t, p, cs, ns, "early", ReasonTenantNamespaceNotFound)

	// The namespace becomes the consumer's tenant namespace; the handshake follows.
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": kube.TenantNamespaceLabels(cs.id)}})
	require.NoError(t, err)
	_, err = p.Kube.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
	cs.handshake(t, p)
	denied := false
	got := waitSlice(t, p, ns, "early", func(rs *authv1beta1.ResourceSlice) bool {
		denied = denied || kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeAuthentication) == authv1beta1.ResourceSliceConditionDenied
		return denied || kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeResources) == authv1beta1.ResourceSliceConditionAccepted
	})
	require.False(t, denied, "never denied")
	assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(got, authv1beta1.ResourceSliceConditionTypeAuthentication))
	assertGranted(t, got, "cpu=2,ephemeral-storage=20Gi,memory=4Gi,pods=110")
}

// undecided puts a replica of the consumer's slice in a new namespace
// without tenant labels and checks that the provider says why (a Warning)
// and decides nothing.
func undecided(t *testing.T, p *kube.Cluster, cs *consumer, namespace, name, reason string) {
	t.Helper()
	ctx := labtest.Context(t)
	_, err := p.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	csr, err := authcrypto.NewResourceSliceCSR(cs.key, name, cs.id)
	require.NoError(t, err)
	replicaOf(t, p, namespace, name, cs.id, csr, "")
	waitEvent(t, p, authv1beta1.ResourceSliceKind, namespace, name, reason)
	got, err := p.Liqo.ResourceSlices(namespace).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, got.Status.Conditions)
}

func assertGranted(t testing.TB, rs *authv1beta1.ResourceSlice, want string) {
	t.Helper()
	assert.Equal(t, want, FormatResourceList(rs.Status.Resources))
}

// The consumer completes a slice labelled for replication in a tenant
// namespace (IDs, a CSR for <slice>-<hash> in group <consumerID> signed with the cluster
// key), makes its Identity once the status says Accepted (and the Identity
// reconciler its kubeconfig, without namespace or annotation), and deletes
// the Identity once the status says Denied.
func TestResourceSliceConsumer(t *testing.T) {
	c := consumerCluster(t)
	startManager(t, c, Options{Consumer: true})
	ctx := labtest.Context(t)
	const provider = "slice-provider"
	ns, _, err := c.EnsureTenantNamespace(ctx, provider)
	require.NoError(t, err)
	slices := c.Liqo.ResourceSlices(ns.Name)
	// Not labelled for replication: the admin's, left alone, as Liqo does.
	_, err = slices.Create(ctx, &authv1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "not-asked", Namespace: ns.Name},
		Spec: authv1beta1.ResourceSliceSpec{Class: authv1beta1.ResourceSliceClassDefault}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = slices.Delete(context.Background(), "not-asked", metav1.DeleteOptions{}) })
	// Labelled for replication, without liqo.io/remote-cluster-id: the
	// provider is the namespace's; no label is added.
	asked := map[string]string{kube.ReplicationLabel: "true", kube.RemoteIDLabel: provider}
	_, err = slices.Create(ctx, &authv1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: ns.Name, Labels: asked},
		Spec: authv1beta1.ResourceSliceSpec{Class: authv1beta1.ResourceSliceClassDefault}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = slices.Delete(context.Background(), "mine", metav1.DeleteOptions{}) })

	rs := waitSlice(t, c, ns.Name, "mine", func(rs *authv1beta1.ResourceSlice) bool { return len(rs.Spec.CSR) > 0 })
	assert.Equal(t, consumerID, rs.Spec.ConsumerClusterID)
	assert.Equal(t, provider, rs.Spec.ProviderClusterID)
	assert.Equal(t, asked, rs.Labels, "no label added, as Liqo's local ResourceSlice controller")
	notAsked, err := slices.Get(ctx, "not-asked", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, notAsked.Spec.CSR)
	assert.Empty(t, notAsked.Labels)
	pub, _, err := c.PublicKey(ctx)
	require.NoError(t, err)
	require.NoError(t, authcrypto.CheckResourceSliceCSR(rs.Spec.CSR, "mine", consumerID, pub))
	parsed, err := authcrypto.ParseCSR(rs.Spec.CSR)
	require.NoError(t, err)
	assert.Equal(t, "mine-"+authcrypto.ConsumerHash(consumerID), parsed.Subject.CommonName)
	assert.Equal(t, []string{consumerID}, parsed.Subject.Organization)

	// The provider's answer, as the replicator brings it back.
	params := &authv1beta1.AuthParams{APIServer: "https://provider.example:6443", SignedCRT: []byte("cert"), CA: []byte("ca")}
	rs.Status.Conditions = kube.SetSliceCondition(nil, authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionAccepted, "CertificateIssued", "", metav1.Now())
	rs.Status.AuthParams = params
	rs, err = slices.UpdateStatus(ctx, rs, metav1.UpdateOptions{})
	require.NoError(t, err)
	identities := c.Liqo.Identities(ns.Name)
	idName := kube.ResourceSliceIdentityName("mine")
	id, err := kube.WaitFor(ctx, kube.ListWatch(identities.List, identities.Watch, kube.ByName(idName)), "identity "+idName,
		func(id *authv1beta1.Identity) (bool, error) { return id.Status.KubeconfigSecretRef != nil, nil })
	require.NoError(t, err)
	assert.Equal(t, authv1beta1.ResourceSliceIdentityType, id.Spec.Type)
	assert.Equal(t, provider, id.Spec.ClusterID)
	assert.Empty(t, id.Spec.Namespace)
	assert.Equal(t, *params, id.Spec.AuthParams)
	assert.Equal(t, map[string]string{kube.RemoteClusterIDLabel: provider, kube.ResourceSliceNameLabel: "mine"}, id.Labels)
	owner := metav1.GetControllerOf(id)
	require.NotNil(t, owner)
	assert.Equal(t, rs.UID, owner.UID)
	assert.Equal(t, authv1beta1.ResourceSliceKind, owner.Kind)

	secret := waitSecret(t, c, ns.Name, "kubeconfig-resourceslice-mine", func(s *corev1.Secret) bool { return len(s.Data[kube.KubeconfigField]) > 0 })
	assert.NotContains(t, secret.Annotations, kube.RemoteTenantNamespace)
	assert.Equal(t, string(authv1beta1.ResourceSliceIdentityType), secret.Labels[kube.IdentityTypeLabel])
	cfg, err := clientcmd.Load(secret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	assert.Empty(t, cfg.Contexts[cfg.CurrentContext].Namespace)
	assert.Equal(t, idName, cfg.Contexts[cfg.CurrentContext].AuthInfo)

	rs.Status.Conditions = kube.SetSliceCondition(rs.Status.Conditions, authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionDenied, "InvalidCSR", "no", metav1.Now())
	rs.Status.AuthParams = nil
	_, err = slices.UpdateStatus(ctx, rs, metav1.UpdateOptions{})
	require.NoError(t, err)
	waitGone(t, kube.ListWatch(identities.List, identities.Watch, kube.ByName(idName)), &authv1beta1.Identity{}, idName)
}

// End to end, after a handshake: a slice made on the consumer is
// replicated, signed by the provider, and its kubeconfig Secret
// authenticates to the provider as user <slice>-<hash> in group
// <consumerID>.
func TestResourceSliceEndToEnd(t *testing.T) {
	p, c := providerCluster(t), consumerCluster(t)
	startManager(t, p, Options{Provider: true})
	startManager(t, c, Options{Consumer: true})
	_, consNS := authenticate(t, p, c)
	ctx := labtest.Context(t)
	slices := c.Liqo.ResourceSlices(consNS)
	rs := kube.ForgeResourceSlice("e2e-slice", consNS, providerID, authv1beta1.ResourceSliceClassDefault,
		corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}, true)
	_, err := slices.Create(ctx, rs, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = slices.Delete(context.Background(), rs.Name, metav1.DeleteOptions{}) })

	got := waitSlice(t, c, consNS, rs.Name, sliceDecided(authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted))
	assert.True(t, resource.MustParse("10").Equal(got.Status.Resources[corev1.ResourcePods]))
	secret := waitSecret(t, c, consNS, kube.KubeconfigSecretName(kube.ResourceSliceIdentityName(rs.Name)),
		func(s *corev1.Secret) bool { return len(s.Data[kube.KubeconfigField]) > 0 })
	cfg, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	kc, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	review, err := kc.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, kube.ResourceSliceUser(rs.Name, consumerID), review.Status.UserInfo.Username)
	assert.Contains(t, review.Status.UserInfo.Groups, consumerID)
}

// mustSliceNow reads a slice from the API server.
func mustSliceNow(t testing.TB, c *kube.Cluster, namespace, name string) *authv1beta1.ResourceSlice {
	t.Helper()
	rs, err := c.Liqo.ResourceSlices(namespace).Get(labtest.Context(t), name, metav1.GetOptions{})
	require.NoError(t, err)
	return rs
}

// setSliceCSR replaces a replicated slice's CSR, as a consumer's replicator
// would bring a new one.
func setSliceCSR(t testing.TB, c *kube.Cluster, namespace, name string, csr []byte) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"csr": csr}})
	require.NoError(t, err)
	_, err = c.Liqo.ResourceSlices(namespace).Patch(labtest.Context(t), name, types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
}

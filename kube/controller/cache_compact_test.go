package controller

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The certificate cache Secret is cached as the sums of its two keys: they
// tell the CSR and certificate it holds, and nothing else of the data stays.
func TestCertSecretSkeleton(t *testing.T) {
	csr, cert := []byte("-----BEGIN CERTIFICATE REQUEST-----\n"), []byte("-----BEGIN CERTIFICATE-----\n")
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: kube.RemoteCertSecretName, Namespace: "liqo-tenant-c1", ResourceVersion: "7", UID: "u1",
			Labels: map[string]string{kube.RemoteClusterIDLabel: "c1"}, Annotations: map[string]string{"a": "b"}},
		Data: map[string][]byte{kube.RemoteCertCSRField: csr, kube.RemoteCertCertificateField: cert},
	}
	obj, err := certSecretSkeleton(s)
	require.NoError(t, err)
	got := obj.(*corev1.Secret)
	assert.True(t, isCertSkeleton(got))
	assert.False(t, isCertSkeleton(s), "the server's Secret is not a skeleton")
	assert.Equal(t, []string{kube.RemoteCertSecretName, "liqo-tenant-c1", "7", "u1"}, []string{got.Name, got.Namespace, got.ResourceVersion, string(got.UID)})
	assert.Empty(t, got.Annotations)
	assert.Empty(t, got.Labels)
	assert.NotContains(t, got.Data, kube.RemoteCertCertificateField)
	assert.True(t, skeletonHolds(got, certSkeletonCSRKey, csr))
	assert.True(t, skeletonHolds(got, certSkeletonCertKey, cert))
	assert.False(t, skeletonHolds(got, certSkeletonCertKey, csr))

	again, err := certSecretSkeleton(got)
	require.NoError(t, err)
	assert.Same(t, got, again, "a skeleton (our own write, remembered) is kept as it is")

	// A Secret without a certificate holds nothing to compare with.
	obj, err = certSecretSkeleton(&corev1.Secret{ObjectMeta: s.ObjectMeta, Data: map[string][]byte{kube.RemoteCertCSRField: csr}})
	require.NoError(t, err)
	assert.False(t, skeletonHolds(obj.(*corev1.Secret), certSkeletonCertKey, nil))

	tomb := cache.DeletedFinalStateUnknown{Key: "k", Obj: s}
	obj, err = certSecretSkeleton(tomb)
	require.NoError(t, err)
	assert.Equal(t, tomb, obj, "a delete tombstone passes")
}

// The strings many cached objects repeat (a consumer's ID, its tenant
// namespace, label keys) are kept once.
func TestCachedStringsShared(t *testing.T) {
	decoded := func() *corev1.Secret { // as if each decoded on its own
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: string([]byte("liqo-tenant-c1")),
			Labels: map[string]string{string([]byte(kube.RemoteClusterIDLabel)): string([]byte("c1"))}}}
	}
	a, err := stripManagedFields(decoded())
	require.NoError(t, err)
	ns, err := namespaceSkeleton(&corev1.Namespace{ObjectMeta: decoded().ObjectMeta, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}})
	require.NoError(t, err)
	sa, sn := a.(*corev1.Secret), ns.(*corev1.Namespace)
	assert.Equal(t, unsafe.StringData(sa.Namespace), unsafe.StringData(sn.Namespace))
	assert.Equal(t, unsafe.StringData(sa.Labels[kube.RemoteClusterIDLabel]), unsafe.StringData(sn.Labels[kube.RemoteClusterIDLabel]))
	for k := range sa.Labels {
		for k2 := range sn.Labels {
			assert.Equal(t, unsafe.StringData(k), unsafe.StringData(k2))
		}
	}
	assert.Empty(t, sn.Spec.Finalizers, "a namespace skeleton keeps its metadata")
	assert.Equal(t, "c1", sn.Labels[kube.RemoteClusterIDLabel])
}

// One index finds Tenants by cluster ID, name and namespace: one entry for
// a Tenant placed as Liqo places it, and lookups keep only what matches.
func TestTenantIndex(t *testing.T) {
	tenant := func(name, namespace, clusterID string) *authv1beta1.Tenant {
		return &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: authv1beta1.TenantSpec{ClusterID: clusterID}}
	}
	placed := tenant("c1", kube.TenantNamespaceName("c1"), "c1")
	values, err := tenantIndexValues(placed)
	require.NoError(t, err)
	assert.Equal(t, []string{"c1"}, values)

	misplaced := tenant("c1", "default", "c2") // named like c1, claiming to be c2
	values, err = tenantIndexValues(misplaced)
	require.NoError(t, err)
	assert.Equal(t, []string{"c2", "c1", "namespace/default"}, values)

	inC2 := tenant("other", kube.TenantNamespaceName("c2"), "c3")
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, tenantIndexers)
	for _, tn := range []*authv1beta1.Tenant{placed, misplaced, inC2} {
		require.NoError(t, idx.Add(tn))
	}
	assert.Equal(t, []*authv1beta1.Tenant{placed}, tenantsOfCluster(idx, "c1"))
	assert.Equal(t, []*authv1beta1.Tenant{misplaced}, tenantsOfCluster(idx, "c2"))
	assert.ElementsMatch(t, []*authv1beta1.Tenant{placed, misplaced}, tenantsNamed(idx, "c1"))
	assert.Equal(t, []*authv1beta1.Tenant{inC2}, tenantsIn(idx, kube.TenantNamespaceName("c2")))
	assert.Equal(t, []*authv1beta1.Tenant{misplaced}, tenantsIn(idx, "default"))
	assert.Empty(t, tenantsIn(idx, "liqo-tenant-"))

	// Without the index (a hand-made cache), every Tenant is looked at.
	plain := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	require.NoError(t, plain.Add(misplaced))
	assert.Equal(t, []*authv1beta1.Tenant{misplaced}, tenantsNamed(plain, "c1"))
}

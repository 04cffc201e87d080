package peerings_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// BenchmarkOverview1000Consumers measures `status` on a provider with
// 1,000 consumers: each with its tenant namespace, nonce, accepted Tenant
// (a real certificate in its status), certificate cache Secret, and every
// tenth a replicated ResourceSlice, all created directly on the lab's
// provider API server. It prints the milliseconds per Read (the bound
// is 1 s) and the rows it returned.
func BenchmarkOverview1000Consumers(b *testing.B) {
	const n = 1000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg := rest.CopyConfig(testLab.Clusters(b)[0].Config)
	cfg.QPS = -1 // creating the objects is not what is measured
	provider, err := kube.NewCluster(cfg, "liqo-ovbench")
	require.NoError(b, err)
	_, err = provider.Init(ctx, kube.InitOptions{ClusterID: "ovbench-provider"})
	require.NoError(b, err)
	start := time.Now()
	parallelDo(b, 32, n, func(i int) error {
		return createSyntheticConsumer(ctx, provider, fmt.Sprintf("ovbench-c-%04d", i), i%10 == 0)
	})
	b.Logf("created %d consumers in %v", n, time.Since(start).Round(time.Millisecond))

	var rows []handshake.Peering
	var took []time.Duration
	for b.Loop() {
		t := time.Now()
		rows, err = peerings.Read(ctx, provider, peerings.Options{})
		took = append(took, time.Since(t))
		require.NoError(b, err)
	}
	ours := 0
	for _, r := range rows {
		if len(r.RemoteID) > 9 && r.RemoteID[:9] == "ovbench-c" {
			ours++
			require.Equal(b, "ok", string(r.Health.Verdict), "%+v", r)
		}
	}
	require.Equal(b, n, ours)
	var total time.Duration
	for _, d := range took {
		total += d
	}
	slices.Sort(took)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	mean := ms(total) / float64(len(took))
	b.ReportMetric(mean, "ms/overview")
	fmt.Printf("Overview of a provider with %d consumers (%d rows in all): %.1f ms per Overview (median %.1f, max %.1f; %d runs)\n",
		n, len(rows), mean, ms(took[len(took)/2]), ms(took[len(took)-1]), len(took))
}

// createSyntheticConsumer makes on provider what an accepted consumer
// leaves there; with a slice, one granted ResourceSlice replicated from it.
func createSyntheticConsumer(ctx context.Context, provider *kube.Cluster, id string, slice bool) error {
	ns := kube.TenantNamespaceName(id)
	if _, err := provider.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns, Labels: kube.TenantNamespaceLabels(id)}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	cert := certificatePEM(id, time.Now().Add(-time.Minute), time.Now().Add(365*24*time.Hour))
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: kube.NonceSecretName, Namespace: ns, Labels: map[string]string{kube.RemoteClusterIDLabel: id, kube.NonceLabel: "true"}},
			Data: map[string][]byte{kube.NonceField: []byte("nonce-" + id)}},
		{ObjectMeta: metav1.ObjectMeta{Name: kube.RemoteCertSecretName, Namespace: ns, Labels: map[string]string{kube.RemoteClusterIDLabel: id}},
			Data: map[string][]byte{kube.RemoteCertCertificateField: cert}},
	} {
		if _, err := provider.Kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	tenant, err := provider.Liqo.Tenants(ns).Create(ctx, &authv1beta1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: ns, Labels: map[string]string{kube.RemoteClusterIDLabel: id}},
		Spec:       authv1beta1.TenantSpec{ClusterID: id, TenantCondition: authv1beta1.TenantConditionActive}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	tenant.Status = authv1beta1.TenantStatus{TenantNamespace: ns, AuthParams: kube.NewAuthParams(cert, nil, "https://provider.example:6443", "")}
	if _, err := provider.Liqo.Tenants(ns).UpdateStatus(ctx, tenant, metav1.UpdateOptions{}); err != nil {
		return err
	}
	if !slice {
		return nil
	}
	rs := kube.ForgeResourceSlice(id+"-slice", ns, "ovbench-provider", authv1beta1.ResourceSliceClassDefault,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}, false)
	rs.Labels = kube.ReplicaLabels(rs.Labels, id)
	created, err := provider.Liqo.ResourceSlices(ns).Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	now := metav1.Now()
	created.Status.Conditions = kube.SetSliceCondition(kube.SetSliceCondition(nil, authv1beta1.ResourceSliceConditionTypeAuthentication,
		authv1beta1.ResourceSliceConditionAccepted, "", "", now), authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionAccepted, "", "", now)
	created.Status.Resources = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	_, err = provider.Liqo.ResourceSlices(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

// certificatePEM is a self-signed certificate valid from notBefore to notAfter.
func certificatePEM(cn string, notBefore, notAfter time.Time) []byte {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// parallelDo runs f(0..n-1) on conc goroutines; the first error fails tb.
func parallelDo(tb testing.TB, conc, n int, f func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range conc {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
				}
			}
		})
	}
	wg.Wait()
	require.NoError(tb, first)
}

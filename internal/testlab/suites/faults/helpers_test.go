//go:build cluster

package faults_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// ids are the cluster IDs of one case: fresh for every case, so that the
// cases share no object, Lease or tenant namespace.
type ids struct{ provider, consumer string }

func idsFor(tag string) ids { return ids{provider: tag + "-prov", consumer: tag + "-cons"} }

// pair initialises the lab's first two clusters for the IDs, each in its
// own Liqo namespace ("liqo-<id>").
func pair(t *testing.T, ctx context.Context, x ids) (provider, consumer *kube.Cluster) {
	t.Helper()
	cs := testLab.Clusters(t)
	return pairOn(t, ctx, cs[0], cs[1], x)
}

// pairOn initialises the provider and consumer lab clusters for the IDs,
// and removes the pair when the test ends.
func pairOn(t *testing.T, ctx context.Context, lp, lc *lab.Cluster, x ids) (provider, consumer *kube.Cluster) {
	t.Helper()
	provider, consumer = liqotest.OurCluster(t, ctx, lp, x.provider), liqotest.OurCluster(t, ctx, lc, x.consumer)
	t.Cleanup(func() { removePair(t, provider, consumer, x) })
	return provider, consumer
}

// removePair deletes what a case left on both clusters, without waiting:
// the lab's clusters stand for many cluster IDs at once, and the in-process
// controllers of every later case would otherwise reconcile all the pairs
// before, each case slower than the last. The finalizers go first, as no
// controller of that pair runs any more.
func removePair(t *testing.T, provider, consumer *kube.Cluster, x ids) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	noFinalizers := []byte(`{"metadata":{"finalizers":null}}`)
	for _, side := range []struct {
		c       *kube.Cluster
		own, ns string
	}{{provider, x.provider, kube.TenantNamespaceName(x.consumer)}, {consumer, x.consumer, kube.TenantNamespaceName(x.provider)}} {
		if tenants, err := side.c.Liqo.Tenants(side.ns).List(ctx, metav1.ListOptions{}); err == nil {
			for _, tn := range tenants.Items {
				_, err := side.c.Liqo.Tenants(side.ns).Patch(ctx, tn.Name, types.MergePatchType, noFinalizers, metav1.PatchOptions{})
				assert.NoError(t, ignoreNotFound(err))
			}
		}
		if identities, err := side.c.Liqo.Identities(side.ns).List(ctx, metav1.ListOptions{}); err == nil {
			for _, id := range identities.Items {
				_, err := side.c.Liqo.Identities(side.ns).Patch(ctx, id.Name, types.MergePatchType, noFinalizers, metav1.PatchOptions{})
				assert.NoError(t, ignoreNotFound(err))
			}
		}
		for _, ns := range []string{side.ns, "liqo-" + side.own} {
			assert.NoError(t, ignoreNotFound(side.c.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})))
		}
	}
	sel := metav1.ListOptions{LabelSelector: kube.RemoteClusterIDLabel + "=" + x.consumer}
	assert.NoError(t, provider.Kube.RbacV1().ClusterRoleBindings().DeleteCollection(ctx, metav1.DeleteOptions{}, sel))
}

func ignoreNotFound(err error) error {
	if kube.IsNotFound(err) {
		return nil
	}
	return err
}

// inventory counts the objects of a pair on both clusters by kind and name,
// with the cluster IDs replaced by <P> and <C> so that two pairs compare:
// everything in a namespace named after one of the IDs, everything named
// after or labelled with one, and the CSRs whose subject is the consumer.
// A duplicate (a second Secret, binding or CSR) shows as a count above one
// or as a name the healthy run does not have.
func inventory(t *testing.T, ctx context.Context, provider, consumer *kube.Cluster, x ids) map[string]int {
	t.Helper()
	out := map[string]int{}
	norm := strings.NewReplacer(x.provider, "<P>", x.consumer, "<C>")
	ours := func(m metav1.Object) bool {
		if x.mentioned(m.GetNamespace()) || x.mentioned(m.GetName()) {
			return true
		}
		for _, v := range m.GetLabels() {
			if v == x.provider || v == x.consumer {
				return true
			}
		}
		return false
	}
	for _, side := range []struct {
		name string
		c    *kube.Cluster
	}{{"provider", provider}, {"consumer", consumer}} {
		add := func(kind string, m metav1.Object) {
			if ours(m) {
				out[norm.Replace(side.name+" "+kind+" "+m.GetNamespace()+"/"+m.GetName())]++
			}
		}
		k := side.c.Kube
		nss, err := k.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for i := range nss.Items {
			add("Namespace", &nss.Items[i])
		}
		secrets, err := k.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for i := range secrets.Items {
			add("Secret", &secrets.Items[i])
		}
		rbs, err := k.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for i := range rbs.Items {
			add("RoleBinding", &rbs.Items[i])
		}
		crbs, err := k.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for i := range crbs.Items {
			add("ClusterRoleBinding", &crbs.Items[i])
		}
		tenants, err := side.c.Liqo.Tenants("").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for i := range tenants.Items {
			add("Tenant", &tenants.Items[i])
		}
		identities, err := side.c.Liqo.Identities("").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for i := range identities.Items {
			add("Identity", &identities.Items[i])
		}
		csrs, err := k.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for _, csr := range csrs.Items {
			if cn := csrSubject(csr.Spec.Request); x.mentioned(cn) {
				out[norm.Replace(side.name+" CertificateSigningRequest CN="+cn)]++
			}
		}
	}
	return out
}

func (x ids) mentioned(s string) bool {
	return s != "" && (strings.Contains(s, x.provider) || strings.Contains(s, x.consumer))
}

func csrSubject(request []byte) string {
	block, _ := pem.Decode(request)
	if block == nil {
		return ""
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return ""
	}
	return req.Subject.CommonName
}

// describeInventory lists an inventory, one object a line, for test logs.
func describeInventory(inv map[string]int) string {
	var lines []string
	for k, n := range inv {
		lines = append(lines, fmt.Sprintf("  %s ×%d", k, n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

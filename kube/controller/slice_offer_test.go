//go:build cluster

package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A granted slice of the default class says what the provider offers, as
// Liqo's provider fills it from the same flags: the StorageClasses sorted
// by name (the cluster's default one marked, or the one named), the
// ingress and load balancer classes, the node labels. A plugin's class
// gets none of it.
func TestResourceSliceOffer(t *testing.T) {
	p := providerCluster(t)
	ctx := labtest.Context(t)
	for _, sc := range []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "offer-standard", Annotations: map[string]string{isDefaultStorageClassAnnotation: "true"}}, Provisioner: "example.com/disk"},
		{ObjectMeta: metav1.ObjectMeta{Name: "offer-fast"}, Provisioner: "example.com/ssd"},
	} {
		_, err := p.Kube.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = p.Kube.StorageV1().StorageClasses().Delete(context.Background(), sc.Name, metav1.DeleteOptions{})
		})
	}
	offer := SliceOffer{EnableStorage: true,
		IngressClasses:      []ClassName{{Name: "nginx", Default: true}, {Name: "traefik"}},
		LoadBalancerClasses: []ClassName{{Name: "metallb", Default: true}},
		ClusterLabels:       map[string]string{"topology.kubernetes.io/zone": "eu-1"}}
	m, err := New(p, Options{Provider: true, SliceOffer: offer})
	require.NoError(t, err)
	stop := runManager(t, m)
	cs := newConsumer(t, "offer-consumer")
	ns := cs.handshake(t, p).Status.TenantNamespace

	granted := func(t *testing.T, name string, class authv1beta1.ResourceSliceClass) *authv1beta1.ResourceSlice {
		t.Helper()
		csr, err := authcrypto.NewResourceSliceCSR(cs.key, name, cs.id)
		require.NoError(t, err)
		replicaOf(t, p, ns, name, cs.id, csr, class)
		return waitSlice(t, p, ns, name, sliceDecided(authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionAccepted))
	}
	storage := func(rs *authv1beta1.ResourceSlice) map[string]bool {
		out := map[string]bool{}
		for _, s := range rs.Status.StorageClasses {
			if s.StorageClassName == "offer-standard" || s.StorageClassName == "offer-fast" {
				out[s.StorageClassName] = s.Default
			}
		}
		return out
	}

	got := granted(t, "offered", "")
	assert.Equal(t, map[string]bool{"offer-fast": false, "offer-standard": true}, storage(got), "the cluster's default StorageClass")
	assert.IsIncreasing(t, storageNames(got), "sorted by name")
	assert.Equal(t, []authv1beta1.IngressType{{IngressClassName: "nginx", Default: true}, {IngressClassName: "traefik"}}, got.Status.IngressClasses)
	assert.Equal(t, []authv1beta1.LoadBalancerType{{LoadBalancerClassName: "metallb", Default: true}}, got.Status.LoadBalancerClasses)
	assert.Equal(t, offer.ClusterLabels, got.Status.NodeLabels)

	plugin := granted(t, "offered-plugin", "gpu-plugin")
	assert.Empty(t, plugin.Status.StorageClasses)
	assert.Empty(t, plugin.Status.NodeLabels)

	// --real-storage-class-name names the default one.
	stop()
	offer.RealStorageClassName = "offer-fast"
	startManager(t, p, Options{Provider: true, SliceOffer: offer})
	got = granted(t, "offered-real", authv1beta1.ResourceSliceClassDefault)
	assert.Equal(t, map[string]bool{"offer-fast": true, "offer-standard": false}, storage(got))
}

func storageNames(rs *authv1beta1.ResourceSlice) []string {
	names := make([]string, len(rs.Status.StorageClasses))
	for i, s := range rs.Status.StorageClasses {
		names[i] = s.StorageClassName
	}
	return names
}

// With the default class disabled (Liqo's next release's
// --default-resource-slice-class-enabled=false), a slice of the default
// class is authenticated and its Resources Denied with reason
// DefaultResourceSliceClassDisabled and the why in a Warning; a plugin's
// class is left to the plugin as before.
func TestDefaultSliceClassDisabled(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true, DefaultSliceClassDisabled: true})
	cs := newConsumer(t, "no-default-class")
	ns := cs.handshake(t, p).Status.TenantNamespace
	for name, class := range map[string]authv1beta1.ResourceSliceClass{"no-default-empty": "", "no-default-named": authv1beta1.ResourceSliceClassDefault} {
		csr, err := authcrypto.NewResourceSliceCSR(cs.key, name, cs.id)
		require.NoError(t, err)
		replicaOf(t, p, ns, name, cs.id, csr, class)
		got := waitSlice(t, p, ns, name, sliceDecided(authv1beta1.ResourceSliceConditionTypeResources, authv1beta1.ResourceSliceConditionDenied))
		assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, kube.SliceConditionStatus(got, authv1beta1.ResourceSliceConditionTypeAuthentication))
		require.NotNil(t, got.Status.AuthParams, "authenticated: the consumer keeps an Identity")
		c := kube.SliceCondition(got, authv1beta1.ResourceSliceConditionTypeResources)
		assert.Equal(t, kube.SliceDefaultClassDisabledReason, c.Reason)
		assert.Equal(t, kube.SliceDefaultClassDisabledMessage, c.Message)
		assert.Empty(t, got.Status.Resources)
		assert.Contains(t, waitEvent(t, p, authv1beta1.ResourceSliceKind, ns, name, ReasonResourcesDenied).Message, "--default-resource-slice-class-enabled=false")
	}
	csr, err := authcrypto.NewResourceSliceCSR(cs.key, "no-default-plugin", cs.id)
	require.NoError(t, err)
	replicaOf(t, p, ns, "no-default-plugin", cs.id, csr, "gpu-plugin")
	got := waitSlice(t, p, ns, "no-default-plugin", sliceDecided(authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionAccepted))
	assert.Nil(t, kube.SliceCondition(got, authv1beta1.ResourceSliceConditionTypeResources), "left to the plugin")
}

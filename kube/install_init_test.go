//go:build cluster

package kube_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

func TestInitPreparesClusterOnceThenChangesNothing(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[0].Config, "init-test")
	ctx := labtest.Context(t)
	require.NoError(t, err)

	before, err := c.Probe(ctx)
	require.NoError(t, err)
	assert.Empty(t, before.ClusterID)
	assert.Empty(t, before.KeyAlgorithm)

	res, err := c.Init(ctx, kube.InitOptions{ClusterID: "init-provider"})
	require.NoError(t, err)
	assert.False(t, res.LiqoInstalled)
	assert.Equal(t, "init-provider", res.ClusterID)
	actions := map[string]kube.Action{}
	for _, ch := range res.Changes {
		actions[ch.Object] = ch.Action
	}
	assert.Equal(t, kube.Created, actions["Namespace init-test"])
	assert.Equal(t, kube.Created, actions["ConfigMap liqo-clusterid-configmap"])
	assert.Equal(t, kube.Created, actions["Secret authentication-keys"])
	assert.Contains(t, []kube.Action{kube.Created, kube.Unchanged}, actions["CustomResourceDefinition tenants.authentication.liqo.io"])
	assert.Contains(t, []kube.Action{kube.Created, kube.Unchanged}, actions["CustomResourceDefinition namespacemaps.offloading.liqo.io"])
	assert.Contains(t, []kube.Action{kube.Created, kube.Unchanged}, actions["ClusterRole liqo-remote-controlplane"])
	assert.Equal(t, kube.Created, actions["Role liqo-peering-user-liqo-ns"])
	assert.Contains(t, []kube.Action{kube.Created, kube.Unchanged}, actions["ClusterRole liqo-peering-user-tenant-ns"])
	assert.Len(t, res.Changes, 3+5+2+2)

	// The CRDs serve: a Tenant can be listed and created; so can Liqo's
	// NamespaceMaps, which a Liqo consumer's replicator lists and watches on
	// a provider.
	_, err = c.Liqo.Tenants("").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	namespaceMaps := schema.GroupVersionResource{Group: "offloading.liqo.io", Version: "v1beta1", Resource: "namespacemaps"}
	dyn, err := dynamic.NewForConfig(c.Config)
	require.NoError(t, err)
	_, err = dyn.Resource(namespaceMaps).Namespace("").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)

	again, err := c.Init(ctx, kube.InitOptions{})
	require.NoError(t, err)
	for _, ch := range again.Changes {
		assert.Equal(t, kube.Unchanged, ch.Action, ch.Object)
	}
	assert.Equal(t, "init-provider", again.ClusterID)

	info, err := c.Probe(ctx)
	require.NoError(t, err)
	assert.Equal(t, "init-provider", info.ClusterID)
	assert.Equal(t, "Ed25519", info.KeyAlgorithm)
	assert.Regexp(t, `^SHA256:[A-Za-z0-9+/]{43}$`, info.KeyFingerprint)
	assert.Equal(t, clusters(t)[0].Config.Host, info.APIServer)
	assert.False(t, info.LiqoInstalled)
	assert.False(t, info.Controller)

	// The stored keys are Liqo's format: PKCS#8 / PKIX PEM of one pair.
	priv, _, err := c.PrivateKey(ctx)
	require.NoError(t, err)
	pub, _, err := c.PublicKey(ctx)
	require.NoError(t, err)
	assert.True(t, authcrypto.SamePublicKey(priv.Public(), pub))
	id, err := c.ClusterID(ctx)
	require.NoError(t, err)
	assert.Equal(t, "init-provider", id)
}

func TestInitRefusesToChangeClusterIDAndWritesNothing(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[1].Config, "init-conflict")
	ctx := labtest.Context(t)
	require.NoError(t, err)
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: "first-id", KeyType: authcrypto.KeyRSA})
	require.NoError(t, err)
	pubBefore, _, err := c.PublicKey(ctx)
	require.NoError(t, err)
	assert.Equal(t, "RSA-2048", authcrypto.KeyAlgorithm(pubBefore))

	_, err = c.Init(ctx, kube.InitOptions{ClusterID: "second-id"})
	require.ErrorContains(t, err, `already has cluster ID "first-id"`)
	id, err := c.ClusterID(ctx)
	require.NoError(t, err)
	assert.Equal(t, "first-id", id)

	_, err = c.Init(ctx, kube.InitOptions{ClusterID: "Not_A_Label"})
	require.ErrorContains(t, err, "DNS-1123")
}

func TestInitOnLiqoClusterWritesNothing(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[2].Config, "")
	ctx := labtest.Context(t)
	require.NoError(t, err)
	fc := &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: kube.LiqoForeignClusterCRDName},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "core.liqo.io", Scope: apiextv1.ClusterScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "foreignclusters", Kind: "ForeignCluster"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object"}}}},
		},
	}
	_, err = c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, fc, metav1.CreateOptions{})
	require.NoError(t, err)

	res, err := c.Init(ctx, kube.InitOptions{})
	require.NoError(t, err)
	assert.True(t, res.LiqoInstalled)
	assert.Empty(t, res.Changes)
	_, err = c.Kube.CoreV1().Namespaces().Get(ctx, kube.DefaultLiqoNamespace, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "init must not create the Liqo namespace on a Liqo cluster")
	_, err = c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, authv1beta1.TenantResource+"."+authv1beta1.GroupName, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err))
}

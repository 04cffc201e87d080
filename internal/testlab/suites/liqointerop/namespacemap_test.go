//go:build cluster

package liqointerop_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/assets"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The NamespaceMap CRD `init` installs is Liqo's of every release, less the
// descriptions and the controller-gen annotation: the same names, scope,
// version, printer columns, schema and subresources.
func TestNamespaceMapCRDIsLiqos(t *testing.T) {
	docs, err := assets.ReplicatedCRDManifests()
	require.NoError(t, err)
	require.Len(t, docs, 1)
	ours := withoutDescriptions(t, docs[0])
	forEachRelease(t, func(t *testing.T, release string) {
		dir, err := realliqov1.Dir(release)
		require.NoError(t, err)
		liqos, err := os.ReadFile(filepath.Join(dir, "crds", "offloading.liqo.io_namespacemaps.yaml"))
		require.NoError(t, err)
		assert.Equal(t, withoutDescriptions(t, liqos), ours)
	})
}

// withoutDescriptions parses a CRD and drops its annotations and every
// schema description.
func withoutDescriptions(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var crd map[string]any
	require.NoError(t, yaml.Unmarshal(doc, &crd))
	unstructured.RemoveNestedField(crd, "metadata", "annotations")
	var drop func(v any)
	drop = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, isString := v["description"].(string); isString {
				delete(v, "description")
			}
			for _, child := range v {
				drop(child)
			}
		case []any:
			for _, child := range v {
				drop(child)
			}
		}
	}
	drop(crd)
	return crd
}

// namespaceMaps is Liqo's offloading API, which `init` serves on our
// provider for a Liqo consumer's crd-replicator.
var namespaceMaps = schema.GroupVersionResource{Group: "offloading.liqo.io", Version: "v1beta1", Resource: "namespacemaps"}

// namespaceMapRoundTrip: a Liqo consumer's crd-replicator lists and watches
// NamespaceMaps in its tenant namespace on our provider, and reflects them
// as the other kinds: a NamespaceMap the Liqo consumer asks to replicate
// (as its namespace offloading makes one) reaches our provider with its
// spec, and the status written there (as a Liqo provider's NamespaceMap
// controller writes it) comes back. Nothing of it is pruned by the schema
// of our CRD.
func namespaceMapRoundTrip(t *testing.T, ctx context.Context, consumer, provider *kube.Cluster, liqoID, ourID string) {
	t.Helper()
	local, remote := dynamicFor(t, consumer).Resource(namespaceMaps), dynamicFor(t, provider).Resource(namespaceMaps)
	consNS, provNS := kube.TenantNamespaceName(ourID), kube.TenantNamespaceName(liqoID)
	name := namespaceMapName(liqoID)
	nm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": namespaceMaps.GroupVersion().String(), "kind": "NamespaceMap",
		"metadata": map[string]any{"name": name, "namespace": consNS,
			"labels": map[string]any{kube.ReplicationLabel: "true", kube.RemoteIDLabel: ourID}},
		"spec": map[string]any{"desiredMapping": map[string]any{"apps": "apps-" + liqoID}},
	}}
	_, err := local.Namespace(consNS).Create(ctx, nm, metav1.CreateOptions{})
	require.NoError(t, err)

	copied := waitNamespaceMap(t, ctx, remote, provNS, name, "the NamespaceMap replicated to our provider",
		func(u *unstructured.Unstructured) bool { return u.GetLabels()[kube.ReplicatedLabel] == "true" })
	assert.Equal(t, liqoID, copied.GetLabels()[kube.OriginIDLabel])
	assert.Contains(t, liqotest.Managers(copied), liqotest.ReplicatorManager+"/")
	desired, _, _ := unstructured.NestedStringMap(copied.Object, "spec", "desiredMapping")
	assert.Equal(t, map[string]string{"apps": "apps-" + liqoID}, desired)

	mapping := map[string]any{"apps": map[string]any{"remoteNamespace": "apps-" + liqoID, "phase": "Accepted"}}
	require.NoError(t, unstructured.SetNestedMap(copied.Object, mapping, "status", "currentMapping"))
	_, err = remote.Namespace(provNS).UpdateStatus(ctx, copied, metav1.UpdateOptions{})
	require.NoError(t, err)
	back := waitNamespaceMap(t, ctx, local, consNS, name, "the provider's status, replicated back",
		func(u *unstructured.Unstructured) bool {
			_, found, _ := unstructured.NestedMap(u.Object, "status", "currentMapping")
			return found
		})
	phase, _, _ := unstructured.NestedString(back.Object, "status", "currentMapping", "apps", "phase")
	assert.Equal(t, "Accepted", phase)
}

// namespaceMapName is the NamespaceMap namespaceMapRoundTrip makes.
func namespaceMapName(liqoID string) string { return liqoID + "-offloading" }

func dynamicFor(t *testing.T, c *kube.Cluster) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(c.Config)
	require.NoError(t, err)
	return d
}

// waitNamespaceMap waits for the NamespaceMap namespace/name to satisfy cond.
func waitNamespaceMap(t *testing.T, ctx context.Context, res dynamic.NamespaceableResourceInterface, namespace, name, what string,
	cond func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	maps := res.Namespace(namespace)
	u, err := kube.WaitFor(ctx, kube.ListWatch(maps.List, maps.Watch, kube.ByName(name)), what,
		func(u *unstructured.Unstructured) (bool, error) { return cond(u), nil })
	require.NoError(t, err, what)
	return u
}

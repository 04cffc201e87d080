//go:build cluster

package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

var testLab = labtest.Lazy("helm")

func TestMain(m *testing.M) { labimage.Main(m, testLab) }

// actionConfig is Helm's client of the lab cluster, as `helm -n liqo` is.
func actionConfig(t *testing.T, c *lab.Cluster) *action.Configuration {
	flags := genericclioptions.NewConfigFlags(false)
	kubeconfig, namespace := c.KubeconfigPath, testNamespace
	flags.KubeConfig, flags.Namespace = &kubeconfig, &namespace
	cfg := new(action.Configuration)
	require.NoError(t, cfg.Init(flags, testNamespace, "secret", t.Logf))
	return cfg
}

// The chart installs into a real kube-apiserver, with the RBAC of the
// kustomization, and an upgrade converges to the new values, leaving
// nothing behind.
func TestInstallAndUpgradeOnAPIServer(t *testing.T) {
	t.Parallel()
	c := testLab.Clusters(t)[0]
	// Niced beside the main tests (make test), the install gets the CPUs
	// last: labtest.Context's minute ran out on 2 CPUs.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cfg := actionConfig(t, c)
	clients, err := kubernetes.NewForConfig(c.Config)
	require.NoError(t, err)

	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.CreateNamespace = testRelease, testNamespace, true
	rel, err := install.RunWithContext(ctx, loadChart(t), values(t, "networkPolicy: {enabled: true}\nmetrics: {service: {enabled: true}}\n"))
	require.NoError(t, err)
	assert.Equal(t, release.StatusDeployed, rel.Info.Status)
	objs := onServer(t, ctx, c, clients, rel)
	assert.Contains(t, objs, "NetworkPolicy liqo-auth-controller")
	assert.Contains(t, objs, "Service liqo-auth-controller-metrics")
	assert.Contains(t, objs, "PodDisruptionBudget liqo-auth-controller")
	for _, crd := range []string{"identities.authentication.liqo.io", "renews.authentication.liqo.io", "resourceslices.authentication.liqo.io",
		"tenants.authentication.liqo.io", "namespacemaps.offloading.liqo.io"} {
		_, err := dynamicFor(t, c).Resource(crdResource).Get(ctx, crd, metav1.GetOptions{})
		assert.NoError(t, err, "CRD %s from crds/", crd)
	}
	assertRBACIsKustomizations(t, objs)

	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = testNamespace
	rel, err = upgrade.RunWithContext(ctx, testRelease, loadChart(t), values(t, "replicaCount: 1\nworkers: 8\nlogging: {format: json}\n"))
	require.NoError(t, err)
	assert.Equal(t, 2, rel.Version)
	d, err := clients.AppsV1().Deployments(testNamespace).Get(ctx, "liqo-auth-controller", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), *d.Spec.Replicas)
	args := d.Spec.Template.Spec.Containers[0].Args
	assert.Contains(t, args, "--workers=8")
	assert.Contains(t, args, "--logging-format=json")
	// No leftovers: what the new values do not render is gone from the server.
	_, err = clients.NetworkingV1().NetworkPolicies(testNamespace).Get(ctx, "liqo-auth-controller", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "NetworkPolicy: %v", err)
	_, err = clients.CoreV1().Services(testNamespace).Get(ctx, "liqo-auth-controller-metrics", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "metrics Service: %v", err)
	_, err = clients.PolicyV1().PodDisruptionBudgets(testNamespace).Get(ctx, "liqo-auth-controller", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "PodDisruptionBudget with one replica: %v", err)
	objs = onServer(t, ctx, c, clients, rel)
	assert.Len(t, objs, 8, "%v", objs)
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func dynamicFor(t *testing.T, c *lab.Cluster) *dynamic.DynamicClient {
	dyn, err := dynamic.NewForConfig(c.Config)
	require.NoError(t, err)
	return dyn
}

// onServer reads every object of the release from the server, by
// "Kind name", each labeled as the release's.
func onServer(t *testing.T, ctx context.Context, c *lab.Cluster, clients kubernetes.Interface, rel *release.Release) map[string]*unstructured.Unstructured {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(clients.Discovery()))
	dyn := dynamicFor(t, c)
	out := map[string]*unstructured.Unstructured{}
	for _, doc := range releaseutil.SplitManifests(rel.Manifest) {
		var u unstructured.Unstructured
		require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
		if len(u.Object) == 0 {
			continue
		}
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		require.NoError(t, err)
		res := dyn.Resource(m.Resource)
		got, err := res.Namespace(u.GetNamespace()).Get(ctx, u.GetName(), metav1.GetOptions{})
		require.NoError(t, err, "%s %s on the server", u.GetKind(), u.GetName())
		assert.Equal(t, testRelease, got.GetAnnotations()["meta.helm.sh/release-name"], "%s %s", u.GetKind(), u.GetName())
		out[u.GetKind()+" "+u.GetName()] = got
	}
	return out
}

// assertRBACIsKustomizations compares the roles and bindings of the
// release, as the server holds them, with those of `kubectl kustomize
// assets/deploy`: the same objects, rules, role references and subjects.
func assertRBACIsKustomizations(t *testing.T, onServer map[string]*unstructured.Unstructured) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), chartDir)
	require.NoError(t, err)
	want, got := map[string]bool{}, map[string]bool{}
	for _, r := range resources.Resources() {
		if r.GetGvk().Group != rbacv1.GroupName {
			continue
		}
		doc, err := r.AsYAML()
		require.NoError(t, err)
		var k unstructured.Unstructured
		require.NoError(t, yaml.Unmarshal(doc, &k.Object))
		key := k.GetKind() + " " + k.GetName()
		want[key] = true
		s, ok := onServer[key]
		if !assert.True(t, ok, "%s of the kustomization is not the release's", key) {
			continue
		}
		assert.Equal(t, k.GetNamespace(), s.GetNamespace(), key)
		for _, field := range []string{"rules", "aggregationRule", "roleRef", "subjects"} {
			assert.Equal(t, k.Object[field], s.Object[field], "%s: %s", key, field)
		}
	}
	require.Len(t, want, 6, "the kustomization's roles and bindings")
	for key, obj := range onServer {
		if obj.GroupVersionKind().Group == rbacv1.GroupName {
			got[key] = true
		}
	}
	assert.Equal(t, want, got, "the release's roles and bindings are the kustomization's")
}

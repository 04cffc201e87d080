//go:build cluster

package kube_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// generationCluster starts a control plane of its own: the test installs
// cluster-scoped CRDs (0.x's, v1's) that would change what the shared
// lab's clusters are for the package's other tests.
func generationCluster(t *testing.T) *lab.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), labtest.StartTimeout)
	defer cancel()
	lc, err := lab.StartCluster(ctx, "generation", lab.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lc.Stop()) })
	return lc
}

// createCRD creates a minimal CRD for kind in group/version, with these
// string fields in its spec, and waits until it is established.
func createCRD(t *testing.T, ctx context.Context, c *kube.Cluster, group, version, plural, kind string, specFields ...string) {
	t.Helper()
	spec := apiextv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{}}
	for _, f := range specFields {
		spec.Properties[f] = apiextv1.JSONSchemaProps{Type: "string"}
	}
	crd := &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextv1.ClusterScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: version, Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"spec": spec}}}}},
		},
	}
	crds := c.APIExt.ApiextensionsV1().CustomResourceDefinitions()
	_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = kube.WaitFor(ctx, kube.ListWatch(crds.List, crds.Watch, kube.ByName(crd.Name)), "CRD "+crd.Name,
		func(crd *apiextv1.CustomResourceDefinition) (bool, error) {
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
	require.NoError(t, err)
}

// createLiqo0xAuthServer creates what Liqo 0.x's chart makes for its auth server:
// the liqo-auth Deployment (cert-creator init container, auth-service
// image, both tagged with the release) and the liqo-auth Service.
func createLiqo0xAuthServer(t *testing.T, ctx context.Context, c *kube.Cluster, tag string) {
	t.Helper()
	labels := map[string]string{"run": "auth-service"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: kube.Liqo0xAuthName, Namespace: c.Namespace},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					InitContainers: []corev1.Container{{Name: "cert-creator", Image: "ghcr.io/liqotech/cert-creator:" + tag}},
					Containers:     []corev1.Container{{Name: "auth-service", Image: "ghcr.io/liqotech/auth-service:" + tag}},
				},
			},
		},
	}
	_, err := c.Kube.AppsV1().Deployments(c.Namespace).Create(ctx, d, metav1.CreateOptions{})
	require.NoError(t, err)
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: kube.Liqo0xAuthName, Namespace: c.Namespace},
		Spec: corev1.ServiceSpec{Selector: labels, Type: corev1.ServiceTypeClusterIP,
			Ports: []corev1.ServicePort{{Name: "https", Port: 443}}},
	}
	_, err = c.Kube.CoreV1().Services(c.Namespace).Create(ctx, s, metav1.CreateOptions{})
	require.NoError(t, err)
}

// probeReleaseUntil probes until the release is want: a CRD just established may
// reach discovery a moment later.
func probeReleaseUntil(t *testing.T, ctx context.Context, c *kube.Cluster, want kube.LiqoRelease) *kube.Info {
	t.Helper()
	var info *kube.Info
	require.Eventually(t, func() bool {
		var err error
		info, err = c.Probe(ctx)
		require.NoError(t, err)
		return info.LiqoRelease == want
	}, 10*time.Second, 50*time.Millisecond, "want %+v", want)
	return info
}

// One cluster through each generation: nothing, this tool's init, Liqo 0.x
// (its CRD, then its auth server), then Liqo v1 beside 0.x's leftovers; and
// a peering user, who may not read Deployments, still told the generation.
func TestProbeTellsTheLiqoFlavor(t *testing.T) {
	lc := generationCluster(t)
	ctx := labtest.Context(t)
	admin, err := kube.NewCluster(lc.Config, "")
	require.NoError(t, err)

	info, err := admin.Probe(ctx)
	require.NoError(t, err)
	assert.Equal(t, kube.LiqoRelease{Flavor: kube.FlavorNone}, info.LiqoRelease)

	_, err = admin.Init(ctx, kube.InitOptions{ClusterID: "gen-provider"})
	require.NoError(t, err)
	probeReleaseUntil(t, ctx, admin, kube.LiqoRelease{Flavor: kube.FlavorToolInit})

	// 0.x's ForeignCluster CRD alone: the line from its schema (peeringType
	// only from v0.4 on), no version.
	createCRD(t, ctx, admin, "discovery.liqo.io", "v1alpha1", "foreignclusters", "ForeignCluster", "foreignAuthUrl", "peeringType")
	probeReleaseUntil(t, ctx, admin, kube.LiqoRelease{Flavor: kube.FlavorLiqo0x, Line: peerinfo.V04})

	createLiqo0xAuthServer(t, ctx, admin, "v0.10.3")
	info, err = admin.Probe(ctx)
	require.NoError(t, err)
	assert.Equal(t, kube.LiqoRelease{Flavor: kube.FlavorLiqo0x, Version: "v0.10.3", Line: peerinfo.V04}, info.LiqoRelease)
	assert.False(t, info.LiqoInstalled, "LiqoInstalled means Liqo v1")

	// The chart's auth.config.enableAuthentication=false: told, loudly.
	d, err := admin.Kube.AppsV1().Deployments(admin.Namespace).Get(ctx, kube.Liqo0xAuthName, metav1.GetOptions{})
	require.NoError(t, err)
	d.Spec.Template.Spec.Containers[0].Args = []string{"--namespace=liqo", "--enable-authentication=false"}
	_, err = admin.Kube.AppsV1().Deployments(admin.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	require.NoError(t, err)
	info, err = admin.Probe(ctx)
	require.NoError(t, err)
	assert.Equal(t, kube.LiqoRelease{Flavor: kube.FlavorLiqo0x, Version: "v0.10.3", Line: peerinfo.V04, AuthenticationDisabled: true}, info.LiqoRelease)

	// A peering user may read the cluster-ID ConfigMap, not Deployments nor
	// CRDs: 0.x from discovery, version unknown, and the probe does not fail.
	kubeconfig, err := admin.GeneratePeeringUser(ctx, "gen-consumer", kube.PeeringUserOptions{})
	require.NoError(t, err)
	user := peeringUserCluster(t, kubeconfig, admin.Namespace)
	eventuallyAccess(t, ctx, user, kube.Access{Verb: "get", Resource: "configmaps", Namespace: admin.Namespace}, true)
	for _, a := range []kube.Access{
		{Verb: "get", Group: "apps", Resource: "deployments", Name: kube.Liqo0xAuthName, Namespace: admin.Namespace},
		{Verb: "get", Resource: "services", Name: kube.Liqo0xAuthName, Namespace: admin.Namespace},
		{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: kube.Liqo0xForeignClusterCRDName},
	} {
		require.Error(t, user.CheckAccess(ctx, []kube.Access{a}), a.String())
	}
	info, err = user.Probe(ctx)
	require.NoError(t, err)
	assert.True(t, info.Restricted)
	assert.Equal(t, "gen-provider", info.ClusterID)
	assert.Equal(t, kube.LiqoRelease{Flavor: kube.FlavorLiqo0x}, info.LiqoRelease)

	// Liqo v1 installed where 0.x was (Helm keeps CRDs): v1.
	createCRD(t, ctx, admin, "core.liqo.io", "v1beta1", "foreignclusters", "ForeignCluster")
	info = probeReleaseUntil(t, ctx, admin, kube.LiqoRelease{Flavor: kube.FlavorV1})
	assert.True(t, info.LiqoInstalled)
	info, err = user.Probe(ctx)
	require.NoError(t, err)
	assert.Equal(t, kube.LiqoRelease{Flavor: kube.FlavorV1}, info.LiqoRelease, "discovery is open to every authenticated user")
}

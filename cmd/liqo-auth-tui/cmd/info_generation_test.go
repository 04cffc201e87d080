//go:build cluster

package cmd_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// infoGenerationJSON runs info -o json with args and decodes it.
func infoGenerationJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := run(append([]string{"info", "-o", "json"}, args...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	return info
}

// infoGenerationUntil runs info -o json until its liqoGeneration is want: a CRD just
// established may reach discovery a moment later.
func infoGenerationUntil(t *testing.T, want string, args ...string) map[string]any {
	t.Helper()
	var info map[string]any
	require.Eventually(t, func() bool {
		info = infoGenerationJSON(t, args...)
		return info["liqoGeneration"] == want
	}, 10*time.Second, 50*time.Millisecond, "want liqoGeneration %q", want)
	return info
}

func infoGenerationText(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := run(append([]string{"info"}, args...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	return out
}

// createGenerationCRD creates a cluster-scoped CRD with these spec fields.
func createGenerationCRD(t *testing.T, ctx context.Context, c *kube.Cluster, group, version, plural string, specFields ...string) {
	t.Helper()
	spec := apiextv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{}}
	for _, f := range specFields {
		spec.Properties[f] = apiextv1.JSONSchemaProps{Type: "string"}
	}
	_, err := c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextv1.ClusterScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: plural, Kind: "ForeignCluster"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: version, Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"spec": spec}}}}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// info on one cluster through the generations: nothing, this tool's init,
// Liqo 0.x (its ForeignCluster CRD and a liqo-auth Deployment tagged
// v0.3.2, as its chart makes them), Liqo v1; and for a peering user, who
// may not read Deployments.
func TestInfoTellsTheLiqoGeneration(t *testing.T) {
	start, cancel := context.WithTimeout(t.Context(), labtest.StartTimeout)
	defer cancel()
	// A cluster of its own: the CRDs installed here are cluster-scoped.
	lc, err := lab.StartCluster(start, "info-generation", lab.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lc.Stop()) })
	ctx := labtest.Context(t)
	s := side{kubeconfig: lc.KubeconfigPath, liqoNamespace: "liqo-info-gen", id: "info-gen"}
	admin := adminOf(t, s)

	info := infoGenerationJSON(t, s.args()...)
	assert.Equal(t, "none", info["liqoGeneration"])
	assert.NotContains(t, info, "liqoVersion")
	assert.Regexp(t, `Liqo generation:\s+no Liqo, no authentication installed yet\n`, infoGenerationText(t, s.args()...))

	code, _, errOut := run(s.args("init", "--cluster-id", s.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	infoGenerationUntil(t, "ours", s.args()...)
	assert.Regexp(t, `Liqo generation:\s+no Liqo: authentication by liqo-auth-tui \(init\)\n`, infoGenerationText(t, s.args()...))
	// A peering user, made before Liqo 0.x arrives (a 0.x provider refuses
	// one: it does not do the handshake the user is for).
	file := generatePeeringUser(t, s, "info-gen-consumer")
	pu := side{kubeconfig: file, liqoNamespace: s.liqoNamespace}

	createGenerationCRD(t, ctx, admin, "discovery.liqo.io", "v1alpha1", "foreignclusters", "foreignAuthUrl")
	labels := map[string]string{"run": "auth-service"}
	_, err = admin.Kube.AppsV1().Deployments(s.liqoNamespace).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "liqo-auth"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "auth-service", Image: "liqo/auth-service:v0.3.2"}}}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	info = infoGenerationUntil(t, "0.x", s.args()...)
	assert.Equal(t, "v0.3.2", info["liqoVersion"])
	assert.Equal(t, "v0.3", info["liqoLine"])
	liqo0xText := infoGenerationText(t, s.args()...)
	assert.Regexp(t, `Liqo generation:\s+Liqo 0\.x \(v0\.3\.2\)\n`, liqo0xText)
	assert.Regexp(t, `Liqo installed:\s+Liqo 0\.x \(v0\.3\.2\)\n`, liqo0xText, "not \"no\" next to a 0.x generation")
	assert.Equal(t, false, info["liqoInstalled"], "JSON unchanged: liqoInstalled is about Liqo v1")

	// The peering user: 0.x from discovery, the version not visible.
	eventuallyMay(t, file, s.liqoNamespace, kube.Access{Verb: "get", Group: "apps", Resource: "deployments", Name: "liqo-auth", Namespace: s.liqoNamespace}, false)
	info = infoGenerationJSON(t, pu.args()...)
	assert.Equal(t, "0.x", info["liqoGeneration"])
	assert.Equal(t, true, info["restricted"])
	assert.NotContains(t, info, "liqoVersion")
	assert.Regexp(t, `Liqo generation:\s+Liqo 0\.x \(version not visible to this user\)\n`, infoGenerationText(t, pu.args()...))

	createGenerationCRD(t, ctx, admin, "core.liqo.io", "v1beta1", "foreignclusters")
	info = infoGenerationUntil(t, "v1", s.args()...)
	assert.Equal(t, true, info["liqoInstalled"])
	assert.Regexp(t, `Liqo generation:\s+Liqo v1\n`, infoGenerationText(t, s.args()...))
	assert.Equal(t, "v1", infoGenerationJSON(t, pu.args()...)["liqoGeneration"])
}

package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

func TestLiqo0xAuthVersionReadsTheImageTag(t *testing.T) {
	deploy := func(images ...string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "cert-creator", Image: images[0]}}
		for _, im := range images[1:] {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Image: im})
		}
		return d
	}
	for _, tc := range []struct {
		name   string
		d      *appsv1.Deployment
		want   string
		reason string
	}{
		{"v0.10", deploy("ghcr.io/liqotech/cert-creator:v0.10.3", "ghcr.io/liqotech/auth-service:v0.10.3"), "v0.10.3", ""},
		{"v0.3 on Docker Hub", deploy("liqo/cert-creator:v0.3.2", "liqo/auth-service:v0.3.2"), "v0.3.2", ""},
		{"auth-service wins", deploy("liqo/cert-creator:v0.4.0", "liqo/auth-service:v0.3.1"), "v0.3.1", ""},
		{"registry port and digest", deploy("x", "registry.local:5000/liqo/auth-service:v0.9.0@sha256:abcd"), "v0.9.0", ""},
		{"tag without v", deploy("x", "liqo/auth-service:0.5.1"), "v0.5.1", ""},
		{"release candidate", deploy("x", "ghcr.io/liqotech/auth-service:v0.11.0-rc.1"), "v0.11.0-rc.1", ""},
		{"a commit", deploy("ghcr.io/liqotech/cert-creator:5b3f271", "ghcr.io/liqotech/auth-service:5b3f271aa"), "", "a commit tag is no version"},
		{"latest", deploy("x", "liqo/auth-service:latest"), "", ""},
		{"digest only", deploy("x", "liqo/auth-service@sha256:abcd"), "", ""},
		{"init container tagged alone", deploy("liqo/cert-creator:v0.10.1", "liqo/auth-service"), "v0.10.1", "the chart tags both the same"},
	} {
		assert.Equal(t, tc.want, liqo0xAuthVersion(tc.d), tc.name+" "+tc.reason)
	}
}

func TestLiqo0xLineOf(t *testing.T) {
	for v, want := range map[string]peerinfo.Line{
		"v0.2": peerinfo.LineUnknown, "v0.2.1": peerinfo.V02, "v0.3.0": peerinfo.V03, "v0.3.2": peerinfo.V03,
		"v0.4.0": peerinfo.V04, "v0.10.3": peerinfo.V04, "v0.11.0-rc.2": peerinfo.V04,
		"v1.0.0": peerinfo.LineUnknown, "": peerinfo.LineUnknown, "latest": peerinfo.LineUnknown,
	} {
		assert.Equal(t, want, Liqo0xLineOf(v), v)
	}
}

func TestLiqo0xLineOfCRD(t *testing.T) {
	crd := func(fields ...string) *apiextv1.CustomResourceDefinition {
		spec := apiextv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{}}
		for _, f := range fields {
			spec.Properties[f] = apiextv1.JSONSchemaProps{Type: "string"}
		}
		return &apiextv1.CustomResourceDefinition{Spec: apiextv1.CustomResourceDefinitionSpec{Versions: []apiextv1.CustomResourceDefinitionVersion{{
			Name: "v1alpha1", Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
				Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"spec": spec}}}}}}}
	}
	assert.Equal(t, peerinfo.V04, Liqo0xLineOfCRD(crd("foreignAuthUrl", "peeringType")))
	assert.Equal(t, peerinfo.V02, Liqo0xLineOfCRD(crd("authUrl")))
	assert.Equal(t, peerinfo.LineUnknown, Liqo0xLineOfCRD(crd("foreignAuthUrl")), "v0.3 and early v0.4 look alike")
	assert.Equal(t, peerinfo.LineUnknown, Liqo0xLineOfCRD(&apiextv1.CustomResourceDefinition{}))
}

func TestPairProblem(t *testing.T) {
	var (
		v1      = LiqoRelease{Flavor: FlavorV1}
		ours    = LiqoRelease{Flavor: FlavorToolInit}
		none    = LiqoRelease{Flavor: FlavorNone}
		unknown = LiqoRelease{Flavor: FlavorUnknown}
		v010    = LiqoRelease{Flavor: FlavorLiqo0x, Version: "v0.10.3", Line: peerinfo.V04}
		v05     = LiqoRelease{Flavor: FlavorLiqo0x, Version: "v0.5.0", Line: peerinfo.V04}
		v03     = LiqoRelease{Flavor: FlavorLiqo0x, Version: "v0.3.2", Line: peerinfo.V03}
		v02     = LiqoRelease{Flavor: FlavorLiqo0x, Line: peerinfo.V02}
		liqo0x  = LiqoRelease{Flavor: FlavorLiqo0x} // version unknown (restricted user)
	)
	for _, tc := range []struct {
		name               string
		consumer, provider LiqoRelease
		want               string // "" = allowed
	}{
		{"v1 pair", v1, v1, ""},
		{"ours with v1", ours, v1, ""},
		{"v1 with ours", v1, ours, ""},
		{"nothing yet on either", none, none, ""},
		{"0.x provider, consumer without Liqo: the tool is the 0.x consumer", none, v010, ""},
		{"0.x provider, consumer prepared by init", ours, v03, ""},
		{"same 0.x line", v05, v010, ""},
		{"v0.3 pair", v03, v03, ""},
		{"0.x line unknown: the handshake tells", liqo0x, v010, ""},
		{"generation unknown: the handshake tells", unknown, v010, ""},
		{"v1 consumer, 0.x provider", v1, v010,
			"consumer a runs Liqo v1, provider b runs Liqo 0.x (v0.10.3): they authenticate differently; upgrade b to Liqo v1, or authenticate from a consumer without Liqo (this tool then acts as the 0.x consumer)"},
		{"0.x consumer, v1 provider", v010, v1,
			"consumer a runs Liqo 0.x (v0.10.3), provider b runs Liqo v1: they authenticate differently; upgrade a to Liqo v1"},
		{"0.x consumer, provider prepared by init", liqo0x, ours,
			"consumer a runs Liqo 0.x, provider b runs liqo-auth-tui's authentication (init), no Liqo: they authenticate differently; upgrade a to Liqo v1"},
		{"0.x consumer, provider without Liqo", v03, none,
			"consumer a runs Liqo 0.x (v0.3.2), provider b runs no Liqo: Liqo 0.x authenticates only with a Liqo 0.x authentication server; install Liqo 0.x (the same line) on b or upgrade a to Liqo v1"},
		{"v0.3 consumer, v0.4+ provider", v03, v010,
			"consumer a runs Liqo 0.x (v0.3.2), provider b runs Liqo 0.x (v0.10.3): v0.3 and v0.4+ send identity requests in different formats and cannot authenticate each other; upgrade a to Liqo v0.4.0 or later (v0.10.3 is the last 0.x)"},
		{"v0.4+ consumer, v0.3 provider", v05, v03,
			"consumer a runs Liqo 0.x (v0.5.0), provider b runs Liqo 0.x (v0.3.2): v0.3 and v0.4+ send identity requests in different formats and cannot authenticate each other; upgrade b to Liqo v0.4.0 or later (v0.10.3 is the last 0.x)"},
		{"v0.2 provider", none, v02,
			"b runs Liqo 0.x (v0.2), whose identities are ServiceAccount tokens (Kubernetes older than 1.24): not supported; upgrade b to Liqo v0.3.0 or later (v0.10.3 is the last 0.x) or to Liqo v1"},
		{"v0.2 consumer", v02, v02,
			"a runs Liqo 0.x (v0.2), whose identities are ServiceAccount tokens (Kubernetes older than 1.24): not supported; upgrade a to Liqo v0.3.0 or later (v0.10.3 is the last 0.x) or to Liqo v1"},
	} {
		assert.Equal(t, tc.want, PairProblem("a", tc.consumer, "b", tc.provider), tc.name)
	}
}

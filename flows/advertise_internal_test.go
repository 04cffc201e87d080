package flows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The flags of a controller Deployment, in both spellings, as Liqo's and
// ours take them.
func TestAdvertiseFlags(t *testing.T) {
	o := advertiseFlags([]string{"/manager", "--api-server-address-override=api.example:6443", "--trusted-ca", "--workers", "4"})
	assert.Equal(t, "api.example:6443", o.APIServerOverride)
	assert.True(t, o.TrustedCA)

	o = advertiseFlags([]string{"--api-server-address-override", "https://x", "--trusted-ca=false", "--ca-override", "bm90IGEgY2VydA=="})
	assert.Equal(t, "https://x", o.APIServerOverride)
	assert.False(t, o.TrustedCA)
	assert.Nil(t, o.CAOverride, "a CA that is not a certificate is not taken")

	assert.Equal(t, kube.AdvertiseOptions{}, advertiseFlags([]string{"api-server-address-override", "x"}), "not a flag")
}

// A created Tenant carries exactly the run's annotations (a consumer's
// Tenant cannot bring its own); a re-run only adds.
func TestAdvertiseTenantAnnotations(t *testing.T) {
	sent := &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		kube.AdvertiseAPIServerAnnotation: "https://from-consumer", "other": "kept"}}}
	got, err := advertiseTenant(sent, EngineOptions{TrustedCA: true})
	assert.NoError(t, err)
	assert.Equal(t, map[string]string{kube.AdvertiseTrustedCAAnnotation: "true", "other": "kept"}, got.Annotations)
	assert.Equal(t, "https://from-consumer", sent.Annotations[kube.AdvertiseAPIServerAnnotation], "the input is not changed")

	merged := mergedAnnotations(map[string]string{kube.AdvertiseAPIServerAnnotation: "https://edited"}, map[string]string{kube.AdvertiseTrustedCAAnnotation: "true"})
	assert.Equal(t, map[string]string{kube.AdvertiseAPIServerAnnotation: "https://edited", kube.AdvertiseTrustedCAAnnotation: "true"}, merged)

	_, err = advertiseTenant(sent, EngineOptions{APIServerOverride: "http://plain"})
	assert.ErrorContains(t, err, "only https")
}

// The wait for a Tenant follows its annotations.
func TestAdvertiseApplied(t *testing.T) {
	tenant := func(ann map[string]string, p *authv1beta1.AuthParams) *authv1beta1.Tenant {
		return &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Annotations: ann}, Status: authv1beta1.TenantStatus{AuthParams: p}}
	}
	edited := kube.AdvertiseAnnotations("https://edited", nil, true)
	assert.False(t, advertiseApplied(tenant(edited, nil)))
	assert.False(t, advertiseApplied(tenant(edited, &authv1beta1.AuthParams{APIServer: "https://old", CA: []byte("ca")})))
	assert.False(t, advertiseApplied(tenant(edited, &authv1beta1.AuthParams{APIServer: "https://edited", CA: []byte("ca")})))
	assert.True(t, advertiseApplied(tenant(edited, &authv1beta1.AuthParams{APIServer: "https://edited"})))
	assert.True(t, advertiseApplied(tenant(nil, &authv1beta1.AuthParams{APIServer: "https://any"})))
}

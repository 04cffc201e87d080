package kube

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A kubeconfig Secret is current when it carries the Identity's server,
// CA and certificate, whatever else (the key, names) it holds.
func TestKubeconfigCurrent(t *testing.T) {
	id := &authv1beta1.Identity{
		ObjectMeta: metav1.ObjectMeta{Name: "controlplane-p", Namespace: "liqo-tenant-p"},
		Spec: authv1beta1.IdentitySpec{ClusterID: "p", Type: authv1beta1.ControlPlaneIdentityType, Namespace: "liqo-tenant-c",
			AuthParams: authv1beta1.AuthParams{APIServer: "https://p.example:6443", CA: []byte("ca"), SignedCRT: []byte("crt")}},
	}
	secretOf := func(id *authv1beta1.Identity) *corev1.Secret {
		kubeconfig, err := Kubeconfig(id, []byte("key"))
		require.NoError(t, err)
		return KubeconfigSecret(id, kubeconfig)
	}
	current := secretOf(id)
	assert.True(t, KubeconfigCurrent(current, id))

	slash := id.DeepCopy()
	slash.Spec.AuthParams.APIServer += "/"
	assert.True(t, KubeconfigCurrent(current, slash), "a trailing slash names the same server")

	for name, change := range map[string]func(*authv1beta1.AuthParams){
		"server":      func(p *authv1beta1.AuthParams) { p.APIServer = "https://edited.example:6443" },
		"CA":          func(p *authv1beta1.AuthParams) { p.CA = nil },
		"certificate": func(p *authv1beta1.AuthParams) { p.SignedCRT = []byte("renewed") },
		"proxy":       func(p *authv1beta1.AuthParams) { p.ProxyURL = "http://proxy.example:8118" },
	} {
		applied := id.DeepCopy()
		change(&applied.Spec.AuthParams)
		assert.False(t, KubeconfigCurrent(current, applied), "another %s", name)
		assert.True(t, KubeconfigCurrent(secretOf(applied), applied), "rewritten for the new %s", name)
	}
	assert.False(t, KubeconfigCurrent(&corev1.Secret{Data: map[string][]byte{KubeconfigField: []byte("garbage: [")}}, id))
	assert.False(t, KubeconfigCurrent(&corev1.Secret{}, id))
}

// An EKS Identity's Secret carries Liqo's five AWS keys next to the
// kubeconfig, which has no certificate; a certificate Identity's has none.
func TestKubeconfigSecretAWS(t *testing.T) {
	id := &authv1beta1.Identity{
		ObjectMeta: metav1.ObjectMeta{Name: "controlplane-eks", Namespace: "liqo-tenant-eks"},
		Spec: authv1beta1.IdentitySpec{ClusterID: "eks", Type: authv1beta1.ControlPlaneIdentityType, Namespace: "liqo-tenant-c",
			AuthParams: authv1beta1.AuthParams{APIServer: "https://eks.example", CA: []byte("ca"), AWSConfig: &authv1beta1.AWSConfig{
				AWSUserArn: "arn:aws:iam::123456789012:user/liqo", AWSAccessKeyID: "AKIAEXAMPLE", AWSSecretAccessKey: "s3cr3t",
				AWSRegion: "eu-west-1", AWSClusterName: "prod"}}},
	}
	kubeconfig, err := Kubeconfig(id, []byte("key"))
	require.NoError(t, err)
	s := KubeconfigSecret(id, kubeconfig)
	assert.Equal(t, map[string][]byte{KubeconfigField: kubeconfig, "awsAccessKeyID": []byte("AKIAEXAMPLE"), "awsSecretAccessKey": []byte("s3cr3t"),
		"awsRegion": []byte("eu-west-1"), "awsEksClusterID": []byte("prod"), "awsIamUserArn": []byte("arn:aws:iam::123456789012:user/liqo")}, s.Data)
	assert.NotContains(t, string(kubeconfig), "client-certificate-data")
	assert.True(t, KubeconfigCurrent(s, id))

	rotated := id.DeepCopy()
	rotated.Spec.AuthParams.AWSConfig.AWSSecretAccessKey = "rotated"
	assert.False(t, KubeconfigCurrent(s, rotated), "new access keys are not in the Secret yet")
	delete(s.Data, AWSRegionField)
	assert.False(t, KubeconfigCurrent(s, id), "a key missing")

	plain := id.DeepCopy()
	plain.Spec.AuthParams.AWSConfig = nil
	assert.Equal(t, []string{KubeconfigField}, slices.Collect(maps.Keys(KubeconfigSecret(plain, kubeconfig).Data)))
}

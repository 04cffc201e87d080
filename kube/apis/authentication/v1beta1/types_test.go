package v1beta1_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

const (
	publicKeyPEM = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n"
	csrPEM       = "-----BEGIN CERTIFICATE REQUEST-----\nMIGaMEgCAQAwJDEQMA4GA1UEChMHbGlxby5pbzEQMA4GA1UEAxMHY2wtY29u\n-----END CERTIFICATE REQUEST-----\n"
	caPEM        = "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIBADAKBggqhkjOPQQDAjAjMSEwHwYDVQQDDBhrM3Mt\n-----END CERTIFICATE-----\n"
	crtPEM       = "-----BEGIN CERTIFICATE-----\nMIIBkTCCATegAwIBAgIIFPm8vFq0iXEwCgYIKoZIzj0EAwIwIzEhMB8GA1UE\n-----END CERTIFICATE-----\n"
)

var signature = func() []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}()

func b64(s []byte) string { return base64.StdEncoding.EncodeToString(s) }

func sampleTenant() *authv1beta1.Tenant {
	return &authv1beta1.Tenant{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.liqo.io/v1beta1", Kind: "Tenant"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      "cl-consumer",
			Namespace: "liqo-tenant-cl-consumer",
			Labels:    map[string]string{"liqo.io/remote-cluster-id": "cl-consumer"},
		},
		Spec: authv1beta1.TenantSpec{
			ClusterID: "cl-consumer",
			PublicKey: []byte(publicKeyPEM),
			CSR:       []byte(csrPEM),
			Signature: signature,
			ProxyURL:  "http://10.70.0.5:8118",
		},
		Status: authv1beta1.TenantStatus{
			TenantNamespace: "liqo-tenant-cl-consumer",
			AuthParams: &authv1beta1.AuthParams{
				CA:        []byte(caPEM),
				SignedCRT: []byte(crtPEM),
				APIServer: "https://172.19.0.3:6443",
				ProxyURL:  "http://10.70.0.5:8118",
			},
		},
	}
}

func sampleIdentity() *authv1beta1.Identity {
	return &authv1beta1.Identity{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.liqo.io/v1beta1", Kind: "Identity"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      "controlplane-cl-provider",
			Namespace: "liqo-tenant-cl-provider",
			Labels:    map[string]string{"liqo.io/remote-cluster-id": "cl-provider"},
		},
		Spec: authv1beta1.IdentitySpec{
			ClusterID: "cl-provider",
			Type:      authv1beta1.ControlPlaneIdentityType,
			AuthParams: authv1beta1.AuthParams{
				CA:        []byte(caPEM),
				SignedCRT: []byte(crtPEM),
				APIServer: "https://172.19.0.3:6443",
				AWSConfig: &authv1beta1.AWSConfig{
					AWSUserArn:         "arn:aws:iam::123456789012:user/liqo-cl-consumer",
					AWSAccessKeyID:     "AKIAEXAMPLE",
					AWSSecretAccessKey: "secret",
					AWSRegion:          "eu-west-1",
					AWSClusterName:     "eks-provider",
				},
			},
			Namespace: "liqo-tenant-cl-consumer",
		},
		Status: authv1beta1.IdentityStatus{
			KubeconfigSecretRef: &corev1.LocalObjectReference{Name: "kubeconfig-controlplane-cl-provider"},
		},
	}
}

// toMap marshals v to JSON and decodes it into a generic map, to look at the
// wire form.
func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

func field(t *testing.T, m map[string]any, path ...string) any {
	t.Helper()
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		require.Truef(t, ok, "%v: %q is not inside an object", path, p)
		cur, ok = mm[p]
		require.Truef(t, ok, "%v: missing %q", path, p)
	}
	return cur
}

func TestTenantJSONRoundTrip(t *testing.T) {
	in := sampleTenant()
	m := toMap(t, in)

	// []byte fields travel as standard padded base64.
	assert.Equal(t, b64([]byte(publicKeyPEM)), field(t, m, "spec", "publicKey"))
	assert.Equal(t, b64([]byte(csrPEM)), field(t, m, "spec", "csr"))
	assert.Equal(t, b64(signature), field(t, m, "spec", "signature"))
	assert.Equal(t, b64([]byte(caPEM)), field(t, m, "status", "authParams", "ca"))
	assert.Equal(t, b64([]byte(crtPEM)), field(t, m, "status", "authParams", "signedCRT"))
	assert.Equal(t, "cl-consumer", field(t, m, "spec", "clusterID"))
	assert.Equal(t, "http://10.70.0.5:8118", field(t, m, "spec", "proxyURL"))
	assert.Equal(t, "liqo-tenant-cl-consumer", field(t, m, "status", "tenantNamespace"))
	assert.Equal(t, "https://172.19.0.3:6443", field(t, m, "status", "authParams", "apiServer"))

	// Unset optional fields are omitted, so the API server applies the
	// defaults (authzPolicy KeysExchange, tenantCondition Active).
	spec := field(t, m, "spec").(map[string]any)
	assert.NotContains(t, spec, "authzPolicy")
	assert.NotContains(t, spec, "tenantCondition")
	assert.NotContains(t, field(t, m, "status", "authParams").(map[string]any), "awsConfig")

	data, err := json.Marshal(in)
	require.NoError(t, err)
	var out authv1beta1.Tenant
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, *in, out)
}

func TestTenantDecodeLiqoDocument(t *testing.T) {
	// A Tenant as stored by a real-Liqo provider (defaults applied).
	doc := `{
	  "apiVersion": "authentication.liqo.io/v1beta1",
	  "kind": "Tenant",
	  "metadata": {"name": "cl-consumer", "labels": {"liqo.io/remote-cluster-id": "cl-consumer"}},
	  "spec": {
	    "clusterID": "cl-consumer",
	    "authzPolicy": "KeysExchange",
	    "tenantCondition": "Cordoned",
	    "publicKey": "` + b64([]byte(publicKeyPEM)) + `",
	    "csr": "` + b64([]byte(csrPEM)) + `",
	    "signature": "` + b64(signature) + `"
	  },
	  "status": {}
	}`
	var tn authv1beta1.Tenant
	require.NoError(t, json.Unmarshal([]byte(doc), &tn))
	assert.Equal(t, authv1beta1.KeysExchange, tn.Spec.AuthzPolicy)
	assert.Equal(t, authv1beta1.TenantConditionCordoned, tn.Spec.TenantCondition)
	assert.Equal(t, []byte(publicKeyPEM), tn.Spec.PublicKey)
	assert.Equal(t, []byte(csrPEM), tn.Spec.CSR)
	assert.Equal(t, signature, tn.Spec.Signature)
	assert.Nil(t, tn.Status.AuthParams)
}

func TestIdentityJSONRoundTrip(t *testing.T) {
	in := sampleIdentity()
	m := toMap(t, in)

	assert.Equal(t, "ControlPlane", field(t, m, "spec", "type"))
	assert.Equal(t, "cl-provider", field(t, m, "spec", "clusterID"))
	assert.Equal(t, "liqo-tenant-cl-consumer", field(t, m, "spec", "namespace"))
	assert.Equal(t, b64([]byte(caPEM)), field(t, m, "spec", "authParams", "ca"))
	assert.Equal(t, b64([]byte(crtPEM)), field(t, m, "spec", "authParams", "signedCRT"))
	assert.Equal(t, "eu-west-1", field(t, m, "spec", "authParams", "awsConfig", "awsRegion"))
	assert.Equal(t, "AKIAEXAMPLE", field(t, m, "spec", "authParams", "awsConfig", "awsAccessKeyID"))
	assert.Equal(t, "kubeconfig-controlplane-cl-provider", field(t, m, "status", "kubeconfigSecretRef", "name"))
	assert.NotContains(t, field(t, m, "spec", "authParams").(map[string]any), "proxyURL")

	data, err := json.Marshal(in)
	require.NoError(t, err)
	var out authv1beta1.Identity
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, *in, out)
}

func TestTenantDeepCopyIsIndependent(t *testing.T) {
	orig := sampleTenant()
	cp := orig.DeepCopy()
	require.Equal(t, orig, cp)

	cp.Labels["liqo.io/remote-cluster-id"] = "changed"
	cp.Spec.PublicKey[0] = 'X'
	cp.Spec.Signature[0] = 0xff
	cp.Status.AuthParams.CA[0] = 'X'
	cp.Status.AuthParams.APIServer = "https://changed"

	fresh := sampleTenant()
	assert.Equal(t, fresh, orig, "mutating the copy changed the original")

	obj := orig.DeepCopyObject()
	tn, ok := obj.(*authv1beta1.Tenant)
	require.True(t, ok)
	assert.Equal(t, orig, tn)
	assert.NotSame(t, orig, tn)
}

func TestIdentityDeepCopyIsIndependent(t *testing.T) {
	orig := sampleIdentity()
	cp := orig.DeepCopy()
	require.Equal(t, orig, cp)

	cp.Spec.AuthParams.SignedCRT[0] = 'X'
	cp.Spec.AuthParams.AWSConfig.AWSRegion = "changed"
	cp.Status.KubeconfigSecretRef.Name = "changed"

	assert.Equal(t, sampleIdentity(), orig, "mutating the copy changed the original")
}

func TestResourceSliceAndRenewDeepCopy(t *testing.T) {
	rs := &authv1beta1.ResourceSlice{
		Spec: authv1beta1.ResourceSliceSpec{
			ConsumerClusterID: "cl-consumer",
			Class:             authv1beta1.ResourceSliceClassDefault,
			Resources:         corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			CSR:               []byte(csrPEM),
		},
		Status: authv1beta1.ResourceSliceStatus{
			Conditions: []authv1beta1.ResourceSliceCondition{{
				Type:   authv1beta1.ResourceSliceConditionTypeAuthentication,
				Status: authv1beta1.ResourceSliceConditionAccepted,
			}},
			NodeLabels:     map[string]string{"a": "b"},
			StorageClasses: []authv1beta1.StorageType{{StorageClassName: "standard", Default: true}},
		},
	}
	cp := rs.DeepCopy()
	require.Equal(t, rs, cp)
	cp.Spec.Resources[corev1.ResourceCPU] = resource.MustParse("4")
	cp.Status.Conditions[0].Status = authv1beta1.ResourceSliceConditionDenied
	cp.Status.NodeLabels["a"] = "c"
	cp.Status.StorageClasses[0].Default = false
	q := rs.Spec.Resources[corev1.ResourceCPU]
	assert.Equal(t, "2", q.String())
	assert.Equal(t, authv1beta1.ResourceSliceConditionAccepted, rs.Status.Conditions[0].Status)
	assert.Equal(t, "b", rs.Status.NodeLabels["a"])
	assert.True(t, rs.Status.StorageClasses[0].Default)

	rn := &authv1beta1.Renew{Spec: authv1beta1.RenewSpec{
		ConsumerClusterID: "cl-consumer",
		IdentityType:      authv1beta1.ResourceSliceIdentityType,
		ResourceSliceRef:  &corev1.LocalObjectReference{Name: "slice"},
	}}
	rcp := rn.DeepCopy()
	rcp.Spec.ResourceSliceRef.Name = "other"
	assert.Equal(t, "slice", rn.Spec.ResourceSliceRef.Name)
}

func TestScheme(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, authv1beta1.AddToScheme(s))

	for kind, obj := range map[string]runtime.Object{
		"Tenant":            &authv1beta1.Tenant{},
		"TenantList":        &authv1beta1.TenantList{},
		"Identity":          &authv1beta1.Identity{},
		"IdentityList":      &authv1beta1.IdentityList{},
		"ResourceSlice":     &authv1beta1.ResourceSlice{},
		"ResourceSliceList": &authv1beta1.ResourceSliceList{},
		"Renew":             &authv1beta1.Renew{},
		"RenewList":         &authv1beta1.RenewList{},
	} {
		gvks, _, err := s.ObjectKinds(obj)
		require.NoError(t, err, kind)
		require.Len(t, gvks, 1, kind)
		assert.Equal(t, schema.GroupVersionKind{Group: "authentication.liqo.io", Version: "v1beta1", Kind: kind}, gvks[0])
	}

	assert.Equal(t, schema.GroupResource{Group: "authentication.liqo.io", Resource: "tenants"}, authv1beta1.Resource("tenants"))
	assert.Equal(t, "authentication.liqo.io/v1beta1", authv1beta1.GroupVersion.String())
	assert.Equal(t, schema.GroupVersionResource{Group: "authentication.liqo.io", Version: "v1beta1", Resource: "identities"},
		authv1beta1.IdentityGroupVersionResource)
}

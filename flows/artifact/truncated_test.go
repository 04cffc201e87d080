package artifact_test

import (
	"bytes"
	stdcrypto "crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A Tenant or Identity cut anywhere (cuts), as YAML or JSON, is either refused
// as truncated with what to do, or (cut in what carries nothing, such as
// the trailing `status: {}`) decodes to the very same artifact.
func TestCutArtifactsAreToldTruncated(t *testing.T) {
	tenant := vectorTenant(t)
	// A proxy sorts before the signature. (No tool writes a field that
	// sorts after it, which a cut could drop unseen: a tenantCondition.)
	withProxy := tenant.DeepCopy()
	withProxy.Spec.ProxyURL = "http://proxy.example:3128"
	// Cut after its first characters, such a value reads as a number.
	digits := tenant.DeepCopy()
	lead, err := base64.StdEncoding.DecodeString("12345678")
	require.NoError(t, err)
	digits.Spec.Signature = append(lead, digits.Spec.Signature[len(lead):]...)
	identity := vectorIdentity(t, tenant)
	withoutCA := identity.DeepCopy()
	withoutCA.Spec.AuthParams.CA = nil
	eks := identity.DeepCopy()
	eks.Spec.AuthParams.SignedCRT = nil
	eks.Spec.AuthParams.AWSConfig = &authv1beta1.AWSConfig{AWSUserArn: "arn:aws:iam::123456789012:user/liqo", AWSAccessKeyID: "AKIAEXAMPLE",
		AWSSecretAccessKey: "secret", AWSRegion: "eu-west-1", AWSClusterName: "provider"}

	cases := map[string]struct {
		obj    any
		decode func([]byte) (any, error)
	}{
		"Ed25519 Tenant":          {tenant, decodeTenant},
		"Tenant with a proxy":     {withProxy, decodeTenant},
		"Tenant signed 12345678…": {digits, decodeTenant},
		"RSA Tenant":              {signedTenant(t, mustKey(t, authcrypto.KeyRSA)), decodeTenant},
		"ECDSA Tenant":            {signedTenant(t, ecdsaKey(t)), decodeTenant},
		"Identity":                {identity, decodeIdentity},
		"Identity without its CA": {withoutCA, decodeIdentity},
		"EKS Identity":            {eks, decodeIdentity},
	}
	for name, tc := range cases {
		kind := "Tenant"
		if _, ok := tc.obj.(*authv1beta1.Identity); ok {
			kind = "Identity"
		}
		formats := []string{"yaml", "json"}
		switch name {
		case "Ed25519 Tenant", "Identity":
			formats = append(formats, "kind-first yaml")
		case "RSA Tenant", "ECDSA Tenant": // their signatures end the YAML; in JSON every cut is a syntax error
			formats = formats[:1]
		}
		for _, format := range formats {
			t.Run(name+" as "+format, func(t *testing.T) {
				whole := encodeAs(t, tc.obj, format)
				want, err := tc.decode(whole)
				require.NoError(t, err)
				for _, cut := range cuts(whole) {
					got, err := tc.decode(whole[:cut])
					if err == nil {
						if !assert.Equal(t, want, got, "cut at %d accepted as another %s:\n%s", cut, kind, whole[:cut]) {
							return
						}
						continue
					}
					if !assert.Contains(t, err.Error(), "it looks truncated: copy the whole "+kind+" printed by `generate "+lower(kind)+"`",
						"cut at %d:\n%s", cut, whole[:cut]) {
						return
					}
				}
			})
		}
	}
}

// What was never an artifact keeps its own words: truncation is told only
// of what begins like one.
func TestNotCutInputsAreNotToldTruncated(t *testing.T) {
	identityYAML := encodeAs(t, vectorIdentity(t, vectorTenant(t)), "yaml")
	for in, want := range map[string]string{
		"{{{ not yaml":                      "not valid YAML",
		"kind: [":                           "not valid YAML",
		"kind: ConfigMap\napiVersion: v1\n": "input is ConfigMap",
		"hello":                             "not a YAML or JSON object",
		"{}":                                "input is no kind",
		string(identityYAML):                "input is Identity, expected a Tenant",
	} {
		_, err := artifact.DecodeTenant([]byte(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want)
		assert.NotContains(t, err.Error(), "truncated")
	}
}

// cuts are where to cut whole: every byte of its first and last lines and
// around each line break and key, every 11th byte elsewhere (11 is prime
// to 4: a base64 value is cut at each of its four phases). Every byte
// everywhere is TestCutArtifactsAreToldTruncatedByTheWizard's, on the
// commands' own artifacts; this keeps the race detector's run short.
func cuts(whole []byte) []int {
	var out []int
	for i := 1; i < len(whole); i++ {
		near := false
		for _, sep := range []string{"\n", ": ", "\": \""} {
			at := bytes.Index(whole[max(0, i-3):min(len(whole), i+3)], []byte(sep))
			near = near || at >= 0
		}
		if i < 64 || len(whole)-i < 64 || near || i%11 == 0 {
			out = append(out, i)
		}
	}
	return out
}

func decodeTenant(b []byte) (any, error)   { return artifact.DecodeTenant(b) }
func decodeIdentity(b []byte) (any, error) { return artifact.DecodeIdentity(b) }

func lower(kind string) string { return string(bytes.ToLower([]byte(kind))) }

// encodeAs encodes obj as the tools print it, or with kind and apiVersion
// swapped, as some hand-made files have them.
func encodeAs(t *testing.T, obj any, format string) []byte {
	kindFirst := format == "kind-first yaml"
	if kindFirst {
		format = "yaml"
	}
	b, err := artifact.Encode(obj, format)
	require.NoError(t, err)
	if kindFirst {
		lines := bytes.SplitN(b, []byte("\n"), 3)
		b = bytes.Join([][]byte{lines[1], lines[0], lines[2]}, []byte("\n"))
	}
	return b
}

// signedTenant is a Tenant of key k over a nonce, as `generate tenant`
// makes it.
func signedTenant(t *testing.T, k stdcrypto.Signer) *authv1beta1.Tenant {
	nonce, err := authcrypto.NewNonce()
	require.NoError(t, err)
	sig, err := authcrypto.SignNonce(k, []byte(nonce))
	require.NoError(t, err)
	csr, err := authcrypto.NewCSR(k, "consumer-cluster")
	require.NoError(t, err)
	pub, err := authcrypto.EncodePublicKeyPEM(k.Public())
	require.NoError(t, err)
	tn := &authv1beta1.Tenant{Spec: authv1beta1.TenantSpec{ClusterID: "consumer-cluster", PublicKey: pub, CSR: csr, Signature: sig}}
	tn.APIVersion, tn.Kind = authv1beta1.GroupVersion.String(), authv1beta1.TenantKind
	tn.Name, tn.Namespace = "consumer-cluster", "liqo-tenant-consumer-cluster"
	tn.Labels = map[string]string{remoteClusterIDLabel: "consumer-cluster"}
	return tn
}

func mustKey(t *testing.T, kt authcrypto.KeyType) stdcrypto.Signer {
	k, err := authcrypto.GenerateKey(kt)
	require.NoError(t, err)
	return k
}

func ecdsaKey(t *testing.T) stdcrypto.Signer {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

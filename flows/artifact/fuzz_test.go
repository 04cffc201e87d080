package artifact_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Fuzz targets of the artifacts an admin receives from the other cluster's
// admin (nonce, Tenant, Identity) and of the ResourceSlice request flags.
// For every input: no panic, errors fit on one line and never echo the
// private key of a pasted key file; what is accepted is valid and encodes
// back to an input that decodes to the same thing.

func fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "crypto", name))
	require.NoError(tb, err)
	return b
}

// checkErrorLine fails when err spans lines or repeats a line of a private
// key block of data (an admin pasting the wrong file must not see, or log,
// its key again).
func checkErrorLine(t *testing.T, data []byte, err error) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("error spans lines: %q", msg)
	}
	inKey := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "-----BEGIN") && strings.Contains(line, "PRIVATE KEY"):
			inKey = true
		case strings.HasPrefix(line, "-----END"):
			inKey = false
		case inKey && len(line) >= 16 && strings.Contains(msg, line):
			t.Fatalf("error echoes private key material: %q", msg)
		}
	}
}

func FuzzParseNonce(f *testing.F) {
	nonce := fixture(f, "vector-nonce.txt")
	f.Add(nonce)
	f.Add(append(append([]byte("  "), nonce...), "\r\n"...))
	f.Add(nonce[:len(nonce)-1])
	f.Add(append(nonce, nonce...))
	f.Add([]byte(strings.ToUpper(string(nonce))))
	f.Add(fixture(f, "vector-private-key.pem"))
	f.Add([]byte(""))
	f.Add([]byte("\n\t \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := artifact.ParseNonce(data)
		if err != nil {
			if got != "" {
				t.Fatal("nonce returned with an error")
			}
			checkErrorLine(t, data, err)
			return
		}
		if got != strings.TrimSpace(string(data)) {
			t.Fatalf("accepted nonce %q is not the trimmed input", got)
		}
		if err := authcrypto.ValidateNonce(got); err != nil {
			t.Fatalf("accepted an invalid nonce %q: %v", got, err)
		}
		if again, err := artifact.ParseNonce([]byte(got + "\n")); err != nil || again != got {
			t.Fatalf("accepted nonce does not parse again: %q, %v", again, err)
		}
	})
}

// remoteClusterIDLabel is kube.RemoteClusterIDLabel (§5), spelled out:
// this package's tests do not link package kube.
const remoteClusterIDLabel = "liqo.io/remote-cluster-id"

// vectorTenant is the Tenant of the spec's §13 test vectors.
func vectorTenant(f testing.TB) *authv1beta1.Tenant {
	f.Helper()
	t := &authv1beta1.Tenant{}
	require.NoError(f, json.Unmarshal(fixture(f, "vector-tenant-spec.json"), &t.Spec))
	t.APIVersion, t.Kind = authv1beta1.GroupVersion.String(), authv1beta1.TenantKind
	t.Name, t.Labels = t.Spec.ClusterID, map[string]string{remoteClusterIDLabel: t.Spec.ClusterID}
	return t
}

// vectorIdentity is an Identity for the vector Tenant, its certificate
// made with the vector key (the provider's CA in real life).
func vectorIdentity(f testing.TB, tenant *authv1beta1.Tenant) *authv1beta1.Identity {
	f.Helper()
	key, err := authcrypto.ParsePrivateKeyPEM(fixture(f, "vector-private-key.pem"))
	require.NoError(f, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: tenant.Spec.ClusterID, Organization: []string{"liqo.io"}},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(0, 0).Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public().(ed25519.PublicKey), key)
	require.NoError(f, err)
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	// As the provider's admin hands it over (kube.ForgeIdentity).
	id := &authv1beta1.Identity{Spec: authv1beta1.IdentitySpec{ClusterID: "provider-cluster", Type: authv1beta1.ControlPlaneIdentityType,
		AuthParams: authv1beta1.AuthParams{CA: cert, SignedCRT: cert, APIServer: "https://provider.example:6443"},
		Namespace:  "liqo-tenant-" + tenant.Spec.ClusterID}}
	id.APIVersion, id.Kind = authv1beta1.GroupVersion.String(), authv1beta1.IdentityKind
	id.Name, id.Labels = "controlplane-provider-cluster", map[string]string{remoteClusterIDLabel: "provider-cluster"}
	return id
}

// addArtifactSeeds adds obj as YAML and JSON, cut and with a second
// document, plus inputs of the wrong kind.
func addArtifactSeeds(f *testing.F, obj any, others ...any) {
	f.Helper()
	for _, o := range append([]any{obj}, others...) {
		for _, format := range []string{"yaml", "json"} {
			b, err := artifact.Encode(o, format)
			require.NoError(f, err)
			f.Add(b)
			f.Add(b[:len(b)/2])
			f.Add(append([]byte("# comment\n---\n"), b...))
		}
	}
	b, err := artifact.Encode(obj, "yaml")
	require.NoError(f, err)
	f.Add(append(append(b, "---\n"...), b...))
	f.Add(bytes.Replace(b, []byte("spec:"), []byte("spec:\n  unknown: 1"), 1))
	key := fixture(f, "vector-private-key.pem")
	f.Add(key)
	f.Add(append([]byte("kind: |\n  "), bytes.ReplaceAll(key, []byte("\n"), []byte("\n  "))...))
	f.Add([]byte("[1, 2]"))
	f.Add([]byte("\"a string\""))
	f.Add([]byte(""))
}

// checkRoundTrip: an accepted artifact, encoded, decodes again and encodes
// the same (the second encoding, since timestamps lose sub-seconds once).
func checkRoundTrip[T any](t *testing.T, obj T, decode func([]byte) (T, error)) {
	t.Helper()
	for _, format := range []string{"yaml", "json"} {
		enc, err := artifact.Encode(obj, format)
		if err != nil {
			t.Fatalf("accepted artifact cannot be encoded as %s: %v", format, err)
		}
		back, err := decode(enc)
		if err != nil {
			t.Fatalf("accepted artifact encoded as %s does not decode: %v\n%s", format, err, enc)
		}
		enc2, err := artifact.Encode(back, format)
		if err != nil {
			t.Fatalf("re-decoded artifact cannot be encoded: %v", err)
		}
		if again, err := decode(enc2); err != nil {
			t.Fatalf("re-encoded artifact does not decode: %v", err)
		} else if enc3, _ := artifact.Encode(again, format); !bytes.Equal(enc2, enc3) {
			t.Fatalf("%s encoding does not round-trip:\n%s\n---\n%s", format, enc2, enc3)
		}
	}
}

func FuzzDecodeTenant(f *testing.F) {
	tenant := vectorTenant(f)
	addArtifactSeeds(f, tenant, vectorIdentity(f, tenant))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := artifact.DecodeTenant(data)
		if err != nil {
			if got != nil {
				t.Fatal("tenant returned with an error")
			}
			checkErrorLine(t, data, err)
			return
		}
		if got.Kind != authv1beta1.TenantKind || got.APIVersion != authv1beta1.GroupVersion.String() {
			t.Fatalf("accepted %s %s as a Tenant", got.APIVersion, got.Kind)
		}
		checkRoundTrip(t, got, artifact.DecodeTenant)
	})
}

func FuzzDecodeIdentity(f *testing.F) {
	tenant := vectorTenant(f)
	addArtifactSeeds(f, vectorIdentity(f, tenant), tenant)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := artifact.DecodeIdentity(data)
		if err != nil {
			if got != nil {
				t.Fatal("identity returned with an error")
			}
			checkErrorLine(t, data, err)
			return
		}
		if got.Kind != authv1beta1.IdentityKind || got.APIVersion != authv1beta1.GroupVersion.String() {
			t.Fatalf("accepted %s %s as an Identity", got.APIVersion, got.Kind)
		}
		// What the wizard shows of it must not panic either.
		_, _ = artifact.IdentityCAFingerprint(got)
		checkRoundTrip(t, got, artifact.DecodeIdentity)
	})
}

var sliceFields = map[string]bool{handshake.FieldSliceName: true, handshake.FieldProvider: true, handshake.FieldClass: true,
	handshake.FieldCPU: true, handshake.FieldMemory: true, handshake.FieldPods: true}

// FuzzCheckSliceRequest: the flags of `create resourceslice` (and
// --batch) and the wizard's ResourceSlice form, which share this check.
// No input panics; a refusal names one field in one line; what is
// accepted is what the API server and Liqo accept, pods a whole number.
func FuzzCheckSliceRequest(f *testing.F) {
	f.Add("slice-1", "provider-cluster", "default", "4", "8Gi", "110", true)
	f.Add("slice-1", "", "", "500m", "", "", false)
	f.Add("Slice", "provider-cluster", "default", "-1", "1e3", "1.5", true)
	f.Add("a.b", "x", "gold.example", "0.1", "1Ei", "9223372036854775807", false)
	f.Add(strings.Repeat("a", 64), "provider-cluster", "default", "1Ki", "+3", "1E18", true)
	f.Add("slice-1", "Provider", "default", "1Pi", "12e-3", "0x10", true)
	f.Fuzz(func(t *testing.T, name, providerID, class, cpu, memory, pods string, virtualNode bool) {
		req := artifact.SliceRequest{Name: name, ProviderID: providerID, Class: class, CPU: cpu, Memory: memory, Pods: pods,
			CreateVirtualNode: virtualNode}
		err := artifact.CheckSliceRequest(req)
		if err != nil {
			checkErrorLine(t, nil, err)
			var fe *handshake.FieldError
			if !errors.As(err, &fe) || !sliceFields[fe.Field] {
				t.Fatalf("refusal without a field of the request: %v", err)
			}
			return
		}
		if len(validation.IsDNS1123Subdomain(name)) > 0 || len(name) > validation.LabelValueMaxLength {
			t.Fatalf("accepted name %q", name)
		}
		if providerID != "" && authcrypto.ValidateClusterID(providerID) != nil {
			t.Fatalf("accepted provider ID %q", providerID)
		}
		if class != "" && len(validation.IsDNS1123Subdomain(class)) > 0 {
			t.Fatalf("accepted class %q", class)
		}
		for _, v := range []string{cpu, memory, pods} {
			if v == "" {
				continue
			}
			q, err := resource.ParseQuantity(v)
			if err != nil || q.Sign() < 0 {
				t.Fatalf("accepted quantity %q: %v", v, err)
			}
			if _, err := resource.ParseQuantity(q.String()); err != nil {
				t.Fatalf("accepted quantity %q is stored as %q, which does not parse: %v", v, q.String(), err)
			}
		}
		if pods != "" {
			if q, _ := resource.ParseQuantity(pods); q.MilliValue()%1000 != 0 {
				t.Fatalf("accepted %q pods", pods)
			}
		}
	})
}

// A YAML or JSON error that would quote a value or field name of the input
// (there, a line of a private key) says so instead of quoting it.
func TestDecodeErrorsQuoteNoKeyData(t *testing.T) {
	const keyLine = "MC4CAQAwBQYDK2VwBCIEIAbcdefghijklmnopqrstuvwxyz0123456789ABCD"
	for _, in := range []string{
		"&a:\n b: \n c: " + keyLine + "\n",
		"kind: Tenant\napiVersion: authentication.liqo.io/v1beta1\nspec:\n  " + keyLine + ": 1\n",
	} {
		_, err := artifact.DecodeTenant([]byte(in))
		require.Error(t, err)
		assert.NotContains(t, err.Error(), keyLine[:16])
		assert.Contains(t, err.Error(), "is it the right file?")
	}
}

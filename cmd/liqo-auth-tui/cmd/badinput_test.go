//go:build cluster

package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

func writeFile(t *testing.T, dir, name string, data []byte) string {
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

func encode(t *testing.T, obj any) []byte {
	b, err := artifact.Encode(obj, "yaml")
	require.NoError(t, err)
	return b
}

// Every bad input exits non-zero with one clear error line, and writes
// nothing to either cluster.
func TestBadInputsFailClearlyAndWriteNothing(t *testing.T) {
	provider, consumer := initSide(t, 0, "bad-provider"), initSide(t, 1, "bad-consumer")
	other := initSide(t, 1, "bad-other")
	dir, _ := manualFlow(t, provider, consumer)
	nonceBytes, err := os.ReadFile(filepath.Join(dir, "nonce.txt"))
	require.NoError(t, err)
	nonce := strings.TrimSpace(string(nonceBytes))
	tenantYAML, err := os.ReadFile(filepath.Join(dir, "tenant.yaml"))
	require.NoError(t, err)
	identityYAML, err := os.ReadFile(filepath.Join(dir, "identity.yaml"))
	require.NoError(t, err)
	tenant, err := artifact.DecodeTenant(tenantYAML)
	require.NoError(t, err)
	identity, err := artifact.DecodeIdentity(identityYAML)
	require.NoError(t, err)

	mutTenant := func(name string, f func(*v1beta1.Tenant)) string {
		c := tenant.DeepCopy()
		f(c)
		return writeFile(t, dir, name, encode(t, c))
	}
	mutIdentity := func(name string, f func(*v1beta1.Identity)) string {
		c := identity.DeepCopy()
		f(c)
		return writeFile(t, dir, name, encode(t, c))
	}
	// A Tenant signed correctly by another key, with a CSR for another name.
	strangerKey, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	strangerSig, err := authcrypto.SignNonce(strangerKey, []byte(nonce))
	require.NoError(t, err)
	strangerPub, err := authcrypto.EncodePublicKeyPEM(strangerKey.Public())
	require.NoError(t, err)
	wrongCNCSR, err := authcrypto.NewCSR(strangerKey, "not-the-consumer")
	require.NoError(t, err)

	deadKubeconfig, _ := labtest.UnreachableKubeconfig(t)
	nobodyCfg, err := clusters(t)[0].AddUser("nobody-at-all")
	require.NoError(t, err)
	nobodyKubeconfig := filepath.Join(dir, "nobody.kubeconfig")
	require.NoError(t, lab.WriteKubeconfig(nobodyKubeconfig, "nobody", nobodyCfg))

	multiDoc := append(append(append([]byte{}, tenantYAML...), []byte("---\n")...), tenantYAML...)
	oversized := append(append([]byte{}, tenantYAML...), []byte("# "+strings.Repeat("x", artifact.MaxSize)+"\n")...)

	cases := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"truncated nonce", consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce", nonce[:40]), "", "truncated"},
		{"garbage nonce", consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce", "this is not a nonce"), "", "nonce"},
		{"empty nonce file", consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce-file", writeFile(t, dir, "empty.txt", nil)), "", "nonce is empty"},
		{"nonce from stdin is a Tenant", consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce-file", "-"), string(tenantYAML), "nonce"},
		{"bad remote cluster ID", consumer.args("generate", "tenant", "--remote-cluster-id", "Bad_ID", "--nonce", nonce), "", "DNS-1123"},
		{"own ID as provider", consumer.args("generate", "tenant", "--remote-cluster-id", consumer.id, "--nonce", nonce), "", "own ID"},
		{"different nonce already signed", consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce", mustNonce(t)), "", "different nonce"},
		{"garbage YAML tenant", provider.args("apply", "tenant", "-f", writeFile(t, dir, "garbage.yaml", []byte("{{{ not yaml"))), "", "not valid YAML"},
		{"multi-document tenant", provider.args("apply", "tenant", "-f", writeFile(t, dir, "multi.yaml", multiDoc)), "", "2 YAML documents"},
		{"oversized tenant", provider.args("apply", "tenant", "-f", writeFile(t, dir, "big.yaml", oversized)), "", "larger than any Tenant"},
		{"ConfigMap instead of Tenant", provider.args("apply", "tenant", "-f", "-"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "expected a Tenant"},
		{"Identity instead of Tenant", provider.args("apply", "tenant", "-f", "-"), string(identityYAML), "expected a Tenant"},
		{"bad signature", provider.args("apply", "tenant", "-f", mutTenant("badsig.yaml", func(x *v1beta1.Tenant) { x.Spec.Signature[0] ^= 0xff })), "", "signature verification failed"},
		{"signature by another key", provider.args("apply", "tenant", "-f", mutTenant("otherkey.yaml", func(x *v1beta1.Tenant) { x.Spec.Signature = strangerSig })), "", "signature verification failed"},
		{"tenant for another cluster", provider.args("apply", "tenant", "-f", mutTenant("stranger.yaml", func(x *v1beta1.Tenant) {
			x.Name, x.Spec.ClusterID, x.Labels = "stranger", "stranger", map[string]string{"liqo.io/remote-cluster-id": "stranger"}
			x.Namespace = ""
		})), "", "made no nonce for consumer stranger"},
		{"CSR with trailing data", provider.args("apply", "tenant", "-f", mutTenant("trailing.yaml", func(x *v1beta1.Tenant) { x.Spec.CSR = append(x.Spec.CSR, []byte("trailing")...) })), "", "invalid CSR"},
		{"CSR with wrong CN", provider.args("apply", "tenant", "-f", mutTenant("wrongcn.yaml", func(x *v1beta1.Tenant) {
			x.Spec.PublicKey, x.Spec.Signature, x.Spec.CSR = strangerPub, strangerSig, wrongCNCSR
		})), "", "invalid common name"},
		{"label does not match spec", provider.args("apply", "tenant", "-f", mutTenant("label.yaml", func(x *v1beta1.Tenant) { x.Labels["liqo.io/remote-cluster-id"] = "someone" })), "", "does not match"},
		{"missing tenant file", provider.args("apply", "tenant", "-f", filepath.Join(dir, "nope.yaml")), "", "no such file"},
		{"identity for the wrong cluster", other.args("apply", "identity", "-f", filepath.Join(dir, "identity.yaml")), "", "issued to cluster bad-consumer"},
		{"garbage identity", consumer.args("apply", "identity", "-f", "-"), "kind: [", "not valid YAML"},
		{"ResourceSlice identity", consumer.args("apply", "identity", "-f", mutIdentity("rs.yaml", func(x *v1beta1.Identity) { x.Spec.Type = v1beta1.ResourceSliceIdentityType })), "", "only ControlPlane"},
		{"plain http API server", consumer.args("apply", "identity", "-f", mutIdentity("http.yaml", func(x *v1beta1.Identity) { x.Spec.AuthParams.APIServer = "http://1.2.3.4" })), "", "not an https URL"},
		{"unreachable server", []string{"create", "nonce", "--remote-cluster-id", consumer.id, "--kubeconfig", deadKubeconfig}, "", "connection refused"},
		{"missing RBAC", []string{"create", "nonce", "--remote-cluster-id", "rbac-consumer", "--kubeconfig", nobodyKubeconfig, "--liqo-namespace", provider.liqoNamespace}, "", "forbidden"},
		{"get nonce of unknown consumer", provider.args("get", "nonce", "--remote-cluster-id", "unknown"), "", "create nonce"},
		{"identity without tenant", provider.args("generate", "identity", "--remote-cluster-id", "unknown"), "", "no Tenant from consumer unknown"},
		{"verify unknown provider", consumer.args("verify", "--remote-cluster-id", "unknown"), "", "authenticate first"},
	}
	require.GreaterOrEqual(t, len(cases), 20)
	ctx := labtest.Context(t)
	before := []map[string]string{objectListing(t, ctx, clusters(t)[0].Config), objectListing(t, ctx, clusters(t)[1].Config)}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runWithInput(tc.stdin, tc.args...)
			assert.NotEqual(t, cmd.ExitOK, code, "stdout: %s", out)
			lines := errorLines(errOut)
			require.Len(t, lines, 1, errOut)
			assert.Contains(t, lines[0], tc.want)
			assert.Empty(t, out)
		})
	}
	for i := range before {
		assert.Empty(t, listingDiff(before[i], objectListing(t, ctx, clusters(t)[i].Config)), "cluster %d: bad inputs must write nothing", i)
	}
}

func mustNonce(t *testing.T) string {
	n, err := authcrypto.NewNonce()
	require.NoError(t, err)
	return n
}

//go:build cluster

package cmd_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
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

// The same input, typed in a command or pasted in the wizard, gets the same
// verdict in the same words: each row feeds one input to the command line
// and to the wizard's backend. A refusal's message is the backend's; the
// command may only frame it (its ERRO line, a flag's or a step's name).
func TestBothFrontEndsGiveOneVerdictInOneWording(t *testing.T) {
	provider, consumer := initSide(t, 0, "same-provider"), initSide(t, 1, "same-consumer")
	dir, _ := manualFlow(t, provider, consumer)
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return data
	}
	nonce, tenantYAML, identityYAML := read("nonce.txt"), read("tenant.yaml"), read("identity.yaml")
	tenant, err := artifact.DecodeTenant(tenantYAML)
	require.NoError(t, err)
	identity, err := artifact.DecodeIdentity(identityYAML)
	require.NoError(t, err)
	files := 0
	file := func(name string, data []byte) string { // each row its own file: the rows are built first
		files++
		return writeFile(t, dir, strconv.Itoa(files)+"-"+name, data)
	}
	mutTenant := func(f func(*v1beta1.Tenant)) []byte {
		c := tenant.DeepCopy()
		f(c)
		return encode(t, c)
	}
	mutIdentity := func(f func(*v1beta1.Identity)) []byte {
		c := identity.DeepCopy()
		f(c)
		return encode(t, c)
	}
	ownPeerInfo, err := artifact.EncodePeerInfo(&peerinfo.Info{ClusterID: consumer.id, ClusterName: "same-consumer",
		AuthURL: "https://127.0.0.1:1", Token: strings.Repeat("0123456789abcdef", 8), Line: peerinfo.V04})
	require.NoError(t, err)

	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	providerRef := tui.ClusterRef{Kubeconfig: provider.kubeconfig, Namespace: provider.liqoNamespace}
	consumerRef := tui.ClusterRef{Kubeconfig: consumer.kubeconfig, Namespace: consumer.liqoNamespace}
	ctx := t.Context()
	checkNonce := func(data []byte) func() error {
		return func() error { _, err := b.CheckNonce(data); return err }
	}
	checkTenant := func(data []byte) func() error {
		return func() error { _, err := b.CheckTenant(ctx, providerRef, data); return err }
	}
	checkIdentity := func(data []byte) func() error {
		return func() error { _, err := b.CheckIdentity(ctx, consumerRef, data); return err }
	}
	checkPeerInfo := func(data []byte) func() error {
		return func() error { _, err := b.CheckPeerInfo(ctx, consumerRef, data); return err }
	}
	checkSlice := func(req tui.SliceRequest) func() error {
		return func() error { return b.CheckSliceRequest(req) }
	}
	checkID := func(id string) func() error { return func() error { return b.CheckClusterID(id) } }
	notPEM := file("ca.txt", []byte("hello"))
	advertise := func(edit tui.AdvertiseEdit) func() error {
		return func() error { _, err := b.SetAdvertised(ctx, providerRef, consumer.id, edit, nil); return err }
	}
	applyTenant := func(data []byte) []string { return provider.args("apply", "tenant", "-f", file("t.yaml", data)) }
	applyIdentity := func(data []byte) []string { return consumer.args("apply", "identity", "-f", file("i.yaml", data)) }
	generateTenant := func(data []byte) []string {
		return consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce-file", file("n.txt", data), "--output-file", filepath.Join(dir, "out.yaml"))
	}
	createSlice := func(name string, flags ...string) []string {
		return consumer.args(append([]string{"create", "resourceslice", name, "--remote-cluster-id", provider.id}, flags...)...)
	}
	slice := func(name, class, cpu, memory, pods string) tui.SliceRequest {
		return tui.SliceRequest{Name: name, ProviderID: provider.id, Class: class, CPU: cpu, Memory: memory, Pods: pods}
	}

	cases := []struct {
		name   string
		cli    []string
		wizard func() error
	}{
		{"good nonce", generateTenant(nonce), checkNonce(nonce)},
		{"empty nonce", generateTenant([]byte(" \n")), checkNonce([]byte(" \n"))},
		{"truncated nonce", generateTenant(nonce[:40]), checkNonce(nonce[:40])},
		{"a Tenant as the nonce", generateTenant(tenantYAML), checkNonce(tenantYAML)},
		{"good Tenant", applyTenant(tenantYAML), checkTenant(tenantYAML)},
		{"Tenant not YAML", applyTenant([]byte("{{{ not yaml")), checkTenant([]byte("{{{ not yaml"))},
		{"Identity as the Tenant", applyTenant(identityYAML), checkTenant(identityYAML)},
		{"Tenant with a bad signature", applyTenant(mutTenant(func(x *v1beta1.Tenant) { x.Spec.Signature[0] ^= 0xff })),
			checkTenant(mutTenant(func(x *v1beta1.Tenant) { x.Spec.Signature[0] ^= 0xff }))},
		{"Tenant of a bad cluster ID", applyTenant(mutTenant(func(x *v1beta1.Tenant) { x.Spec.ClusterID = "Bad_ID" })),
			checkTenant(mutTenant(func(x *v1beta1.Tenant) { x.Spec.ClusterID = "Bad_ID" }))},
		{"Tenant relabelled", applyTenant(mutTenant(func(x *v1beta1.Tenant) { x.Labels["liqo.io/remote-cluster-id"] = "someone" })),
			checkTenant(mutTenant(func(x *v1beta1.Tenant) { x.Labels["liqo.io/remote-cluster-id"] = "someone" }))},
		{"Tenant truncated in a base64 value", applyTenant(cutInside(t, tenantYAML, "signature: ")), checkTenant(cutInside(t, tenantYAML, "signature: "))},
		{"Tenant truncated at a line's end", applyTenant(cutBefore(t, tenantYAML, "  publicKey:")), checkTenant(cutBefore(t, tenantYAML, "  publicKey:"))},
		{"good Identity", applyIdentity(identityYAML), checkIdentity(identityYAML)},
		{"Identity truncated in a base64 value", applyIdentity(cutInside(t, identityYAML, "ca: ")), checkIdentity(cutInside(t, identityYAML, "ca: "))},
		{"Identity truncated before its type", applyIdentity(cutBefore(t, identityYAML, "  type:")), checkIdentity(cutBefore(t, identityYAML, "  type:"))},
		{"Identity not YAML", applyIdentity([]byte("kind: [")), checkIdentity([]byte("kind: ["))},
		{"Tenant as the Identity", applyIdentity(tenantYAML), checkIdentity(tenantYAML)},
		{"ResourceSlice Identity", applyIdentity(mutIdentity(func(x *v1beta1.Identity) { x.Spec.Type = v1beta1.ResourceSliceIdentityType })),
			checkIdentity(mutIdentity(func(x *v1beta1.Identity) { x.Spec.Type = v1beta1.ResourceSliceIdentityType }))},
		{"Identity over plain http", applyIdentity(mutIdentity(func(x *v1beta1.Identity) { x.Spec.AuthParams.APIServer = "http://1.2.3.4" })),
			checkIdentity(mutIdentity(func(x *v1beta1.Identity) { x.Spec.AuthParams.APIServer = "http://1.2.3.4" }))},
		{"peer info truncated", consumer.args("apply", "peer-info", "-f", file("p1.txt", []byte(ownPeerInfo[:len(ownPeerInfo)-3]))),
			checkPeerInfo([]byte(ownPeerInfo[:len(ownPeerInfo)-3]))},
		{"nonce as the peer info", consumer.args("apply", "peer-info", "-f", file("p2.txt", nonce)), checkPeerInfo(nonce)},
		{"the consumer's own peer info", consumer.args("apply", "peer-info", "-f", file("p3.txt", []byte(ownPeerInfo))), checkPeerInfo([]byte(ownPeerInfo))},
		{"one and a half pods", createSlice("s", "--pods", "1.5"), checkSlice(slice("s", "default", "", "", "1.5"))},
		{"lots of CPU", createSlice("s", "--cpu", "lots"), checkSlice(slice("s", "default", "lots", "", ""))},
		{"negative memory", createSlice("s", "--memory", "-1Gi"), checkSlice(slice("s", "default", "", "-1Gi", ""))},
		{"bad slice name", createSlice("Bad_Name"), checkSlice(slice("Bad_Name", "default", "", "", ""))},
		{"bad class", createSlice("s", "--class", "my class"), checkSlice(slice("s", "my class", "", "", ""))},
		{"bad consumer ID", provider.args("generate", "peering-user", "--consumer-cluster-id", "Bad_ID"), checkID("Bad_ID")},
		{"bad cluster ID", provider.args("init", "--cluster-id", "Bad_ID"), checkID("Bad_ID")},
		{"CA file not PEM", provider.args("create", "nonce", "--remote-cluster-id", consumer.id, "--ca-override-file", notPEM),
			advertise(tui.AdvertiseEdit{CAFile: notPEM})},
		{"API server over plain http", provider.args("create", "nonce", "--remote-cluster-id", consumer.id, "--api-server-override", "http://plain.example"),
			advertise(tui.AdvertiseEdit{APIServer: "http://plain.example"})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.cli...)
			werr := tc.wizard()
			if strings.Contains(tc.name, "truncated") {
				require.ErrorContains(t, werr, "truncated", "a cut paste is called truncated")
			}
			if werr == nil {
				require.Equal(t, cmd.ExitOK, code, "the wizard accepts what the command refuses: %s", errOut)
				return
			}
			require.NotEqual(t, cmd.ExitOK, code, "the command accepts what the wizard refuses (%v): %s", werr, out)
			lines := errorLines(errOut)
			require.NotEmpty(t, lines, errOut)
			// The command prints one line per message (Printer.line).
			want := strings.Join(strings.Fields(werr.Error()), " ")
			assert.Contains(t, lines[len(lines)-1], want, "the command words it otherwise")
		})
	}
}

// cutInside is data cut 7 bytes into the value after marker: a paste that
// stopped mid-value.
func cutInside(t *testing.T, data []byte, marker string) []byte {
	i := strings.Index(string(data), marker)
	require.GreaterOrEqual(t, i, 0, marker)
	return data[:i+len(marker)+7]
}

// cutBefore is data up to the line that starts with marker: a paste that
// stopped at a line's end.
func cutBefore(t *testing.T, data []byte, marker string) []byte {
	i := strings.Index(string(data), "\n"+marker)
	require.GreaterOrEqual(t, i, 0, marker)
	return data[:i+1]
}

// A real Tenant and Identity, as the commands printed them, cut at every
// byte and pasted in the wizard (which validates against the cluster as
// the admin types): each cut is refused as truncated with what to do, or
// (cut in the trailing `status: {}`) is the very same artifact.
func TestCutArtifactsAreToldTruncatedByTheWizard(t *testing.T) {
	provider, consumer := initSide(t, 0, "cut-provider"), initSide(t, 1, "cut-consumer")
	dir, _ := manualFlow(t, provider, consumer)
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	ctx := t.Context()
	for _, tc := range []struct {
		file, kind, maker string
		check             func([]byte) error
		decode            func([]byte) (any, error)
	}{
		{"tenant.yaml", "Tenant", "`generate tenant` on the consumer",
			func(d []byte) error {
				_, err := b.CheckTenant(ctx, tui.ClusterRef{Kubeconfig: provider.kubeconfig, Namespace: provider.liqoNamespace}, d)
				return err
			},
			func(d []byte) (any, error) { return artifact.DecodeTenant(d) }},
		{"identity.yaml", "Identity", "`generate identity` on the provider",
			func(d []byte) error {
				_, err := b.CheckIdentity(ctx, tui.ClusterRef{Kubeconfig: consumer.kubeconfig, Namespace: consumer.liqoNamespace}, d)
				return err
			},
			func(d []byte) (any, error) { return artifact.DecodeIdentity(d) }},
	} {
		whole, err := os.ReadFile(filepath.Join(dir, tc.file))
		require.NoError(t, err)
		want, err := tc.decode(whole)
		require.NoError(t, err)
		accepted := 0
		for cut := 1; cut < len(whole); cut++ {
			err := tc.check(whole[:cut])
			if err == nil {
				got, _ := tc.decode(whole[:cut])
				require.Equal(t, want, got, "%s cut at %d accepted as another %s", tc.file, cut, tc.kind)
				accepted++
				continue
			}
			require.Contains(t, err.Error(), "it looks truncated: copy the whole "+tc.kind+" printed by "+tc.maker, "%s cut at %d", tc.file, cut)
		}
		assert.Less(t, accepted, 12, "only cuts in the trailing status are accepted")
	}
}

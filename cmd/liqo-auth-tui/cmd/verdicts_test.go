//go:build cluster

package cmd_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/legacypeer"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

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
		return writeFile(t, dir, fmt.Sprint(files, "-", name), data)
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
	ownPeerInfo, err := artifact.EncodePeerInfo(&legacypeer.PeerInfo{ClusterID: consumer.id, ClusterName: "same-consumer",
		AuthURL: "https://127.0.0.1:1", Token: strings.Repeat("0123456789abcdef", 8), Line: legacypeer.V04})
	require.NoError(t, err)

	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	providerRef := tui.ClusterRef{Kubeconfig: provider.kubeconfig, Namespace: provider.liqoNamespace}
	consumerRef := tui.ClusterRef{Kubeconfig: consumer.kubeconfig, Namespace: consumer.liqoNamespace}
	ctx := context.Background()
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
		{"good Identity", applyIdentity(identityYAML), checkIdentity(identityYAML)},
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.cli...)
			werr := tc.wizard()
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

// What a command prints with -o json, the command that consumes it reads
// back: the Tenant and the Identity (the peer info: flows/artifact's test).
func TestJSONOutputIsReadBack(t *testing.T) {
	provider, consumer := initSide(t, 0, "json-provider"), initSide(t, 1, "json-consumer")
	dir, _ := manualFlow(t, provider, consumer)
	nonceFile := filepath.Join(dir, "nonce.txt")

	code, tenantJSON, errOut := run(consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce-file", nonceFile, "-o", "json")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	require.True(t, strings.HasPrefix(tenantJSON, "{"), tenantJSON)
	code, _, errOut = runWithInput(tenantJSON, provider.args("apply", "tenant", "-f", "-")...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	code, identityJSON, errOut := run(provider.args("generate", "identity", "--remote-cluster-id", consumer.id, "-o", "json")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	require.True(t, strings.HasPrefix(identityJSON, "{"), identityJSON)
	code, _, errOut = runWithInput(identityJSON, consumer.args("apply", "identity", "-f", "-")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
}

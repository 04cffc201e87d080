//go:build cluster

package cmd_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// side is one cluster as an admin with one kubeconfig sees it.
type side struct {
	kubeconfig, liqoNamespace, id string
}

func (s side) args(args ...string) []string {
	return append(args, "--kubeconfig", s.kubeconfig, "--liqo-namespace", s.liqoNamespace)
}

func initSide(t *testing.T, clusterIndex int, id string) side {
	s := side{kubeconfig: clusters(t)[clusterIndex].KubeconfigPath, liqoNamespace: "liqo-" + id, id: id}
	code, _, errOut := run(s.args("init", "--cluster-id", id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	return s
}

// privateKeyTexts returns the forms in which a cluster's private key could
// leak: its PEM and the base64 of its PEM.
func privateKeyTexts(t *testing.T, s side) []string {
	c, err := kube.Connect(kube.KubeconfigOptions{Path: s.kubeconfig, LiqoNamespace: s.liqoNamespace})
	require.NoError(t, err)
	_, pemBytes, err := c.PrivateKey(labtest.Context(t))
	require.NoError(t, err)
	return []string{string(pemBytes), base64.StdEncoding.EncodeToString(pemBytes), "PRIVATE KEY"}
}

// manualFlow runs the four manual steps, one kubeconfig per command, with
// artifacts moving only as files and stdin. It returns the artifact paths.
func manualFlow(t *testing.T, provider, consumer side) (dir string, outputs []string) {
	dir = t.TempDir()
	nonceFile, tenantFile, identityFile := filepath.Join(dir, "nonce.txt"), filepath.Join(dir, "tenant.yaml"), filepath.Join(dir, "identity.yaml")

	code, out, errOut := run(provider.args("create", "nonce", "--remote-cluster-id", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	require.NoError(t, os.WriteFile(nonceFile, []byte(out), 0o600))
	outputs = append(outputs, out, errOut)
	assert.Contains(t, errOut, "generate tenant --remote-cluster-id "+provider.id)
	// liqoctl's command is the alternative, not a further step.
	assert.Contains(t, errOut, "; or, on a consumer running liqoctl: liqoctl generate tenant --remote-cluster-id "+provider.id)
	assert.NotContains(t, errOut, "then liqoctl")

	code, out, errOut = run(consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce-file", nonceFile, "--output-file", tenantFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Empty(t, out)
	outputs = append(outputs, errOut)

	code, out, errOut = run(provider.args("apply", "tenant", "-f", tenantFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	outputs = append(outputs, out, errOut)
	code, out, errOut = run(provider.args("generate", "identity", "--remote-cluster-id", consumer.id, "--output-file", identityFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	outputs = append(outputs, out, errOut)

	identity, err := os.ReadFile(identityFile)
	require.NoError(t, err)
	code, out, errOut = runWithInput(string(identity), consumer.args("apply", "identity", "-f", "-")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	outputs = append(outputs, out, errOut)
	return dir, outputs
}

func TestManualFlowWithOneKubeconfigPerCommand(t *testing.T) {
	provider, consumer := initSide(t, 0, "man-provider"), initSide(t, 1, "man-consumer")
	dir, outputs := manualFlow(t, provider, consumer)

	code, out, errOut := run(consumer.args("verify", "--remote-cluster-id", provider.id, "-o", "json")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	var v struct {
		User    string   `json:"user"`
		Groups  []string `json:"groups"`
		Allowed []string `json:"allowed"`
		Denied  []string `json:"denied"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, consumer.id, v.User)
	assert.Contains(t, v.Groups, "liqo.io")
	assert.Contains(t, v.Allowed, "create resourceslices.authentication.liqo.io -n liqo-tenant-man-consumer")
	assert.Contains(t, v.Denied, "get secrets -n liqo-tenant-man-consumer")
	outputs = append(outputs, out, errOut)

	// No private key in any output or file the tool wrote.
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		info, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), f)
		outputs = append(outputs, string(b))
	}
	for _, s := range []side{provider, consumer} {
		for _, secret := range privateKeyTexts(t, s) {
			for _, o := range outputs {
				assert.NotContains(t, o, secret)
			}
		}
	}

	// Re-running the provider's and consumer's steps is harmless.
	_, again := manualFlow(t, provider, consumer)
	assert.NotEmpty(t, again)
}

// objectCount counts what the tool could create on a cluster.
func objectCount(t *testing.T, ctx context.Context, kubeconfig string) map[string]int {
	c, err := kube.Connect(kube.KubeconfigOptions{Path: kubeconfig})
	require.NoError(t, err)
	counts := map[string]int{}
	lo := metav1.ListOptions{}
	ns, err := c.Kube.CoreV1().Namespaces().List(ctx, lo)
	require.NoError(t, err)
	counts["namespaces"] = len(ns.Items)
	secrets, err := c.Kube.CoreV1().Secrets("").List(ctx, lo)
	require.NoError(t, err)
	counts["secrets"] = len(secrets.Items)
	cms, err := c.Kube.CoreV1().ConfigMaps("").List(ctx, lo)
	require.NoError(t, err)
	counts["configmaps"] = len(cms.Items)
	tenants, err := c.Liqo.Tenants("").List(ctx, lo)
	require.NoError(t, err)
	counts["tenants"] = len(tenants.Items)
	ids, err := c.Liqo.Identities("").List(ctx, lo)
	require.NoError(t, err)
	counts["identities"] = len(ids.Items)
	csrs, err := c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, lo)
	require.NoError(t, err)
	counts["csrs"] = len(csrs.Items)
	rbs, err := c.Kube.RbacV1().RoleBindings("").List(ctx, lo)
	require.NoError(t, err)
	counts["rolebindings"] = len(rbs.Items)
	crbs, err := c.Kube.RbacV1().ClusterRoleBindings().List(ctx, lo)
	require.NoError(t, err)
	counts["clusterrolebindings"] = len(crbs.Items)
	leases, err := c.Kube.CoordinationV1().Leases("").List(ctx, lo)
	require.NoError(t, err)
	counts["leases"] = len(leases.Items)
	return counts
}

func errorLines(stderr string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "ERRO") {
			lines = append(lines, l)
		}
	}
	return lines
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

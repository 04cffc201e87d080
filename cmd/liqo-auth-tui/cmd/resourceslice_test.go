//go:build cluster

package cmd_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// slice is a ResourceSlice as `get resourceslice -o json` prints it.
type slice struct {
	Name             string            `json:"name"`
	ProviderID       string            `json:"providerClusterID"`
	Class            string            `json:"class"`
	Authentication   string            `json:"authentication"`
	Resources        string            `json:"resources"`
	Requested        map[string]string `json:"requested"`
	Granted          map[string]string `json:"granted"`
	KubeconfigSecret string            `json:"kubeconfigSecret"`
}

func getSlices(t *testing.T, consumer side, args ...string) []slice {
	t.Helper()
	code, out, errOut := run(consumer.args(append([]string{"get", "resourceslice", "-o", "json"}, args...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	var list []slice
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	return list
}

// After authenticate, create resourceslice (both kubeconfigs: both sides
// served in-process) ends with the provider's answer and a kubeconfig
// Secret; again changes nothing; get shows it; delete removes it.
func TestResourceSliceCommands(t *testing.T) {
	provider, consumer := initSide(t, 0, "rs-provider"), initSide(t, 1, "rs-consumer")
	code, _, errOut := run(consumer.args("authenticate", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	create := consumer.args("create", "resourceslice", "cmd-slice", "--remote-cluster-id", provider.id, "--cpu", "2", "--memory", "1Gi",
		"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)
	code, out, errOut := run(create...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "ResourceSlice liqo-tenant-rs-provider/cmd-slice created")
	assert.Contains(t, errOut, "ResourceSlice cmd-slice: authentication Accepted, resources Accepted (cpu=2,ephemeral-storage=20Gi,memory=1Gi,pods=110); kubeconfig Secret liqo-tenant-rs-provider/kubeconfig-resourceslice-cmd-slice")

	code, _, errOut = run(create...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "already exists: nothing changed")

	list := getSlices(t, consumer, "--remote-cluster-id", provider.id)
	require.Len(t, list, 1)
	assert.Equal(t, slice{Name: "cmd-slice", ProviderID: provider.id, Class: "default", Authentication: "Accepted", Resources: "Accepted",
		Requested: map[string]string{"cpu": "2", "memory": "1Gi"},
		// and Liqo's defaults for what it did not ask.
		Granted:          map[string]string{"cpu": "2", "memory": "1Gi", "pods": "110", "ephemeral-storage": "20Gi"},
		KubeconfigSecret: "liqo-tenant-rs-provider/kubeconfig-resourceslice-cmd-slice"}, list[0])
	code, out, errOut = run(consumer.args("get", "resourceslice", "cmd-slice")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, out, "cmd-slice")
	assert.Contains(t, out, "Accepted")
	assert.Regexp(t, `REQUESTED\s+GRANTED`, out)
	assert.Regexp(t, `cpu=2,memory=1Gi\s+cpu=2,ephemeral-storage=20Gi,memory=1Gi,pods=110`, out)

	// Another ask: updated in place (liqoctl's CreateOrUpdate), re-granted
	// by the provider, the same Identity and kubeconfig Secret (not made
	// again).
	admin := adminOf(t, consumer)
	ctx := labtest.Context(t)
	ns := kube.TenantNamespaceName(provider.id)
	idBefore, err := admin.Liqo.Identities(ns).Get(ctx, kube.ResourceSliceIdentityName("cmd-slice"), metav1.GetOptions{})
	require.NoError(t, err)
	secretBefore, err := admin.Kube.CoreV1().Secrets(ns).Get(ctx, "kubeconfig-resourceslice-cmd-slice", metav1.GetOptions{})
	require.NoError(t, err)
	code, _, errOut = run(consumer.args("create", "resourceslice", "cmd-slice", "--remote-cluster-id", provider.id, "--cpu", "3", "--memory", "1Gi",
		"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "updated: cpu 2 -> 3")
	list = getSlices(t, consumer, "--remote-cluster-id", provider.id)
	require.Len(t, list, 1)
	assert.Equal(t, "3", list[0].Granted["cpu"])
	assert.Equal(t, "liqo-tenant-rs-provider/kubeconfig-resourceslice-cmd-slice", list[0].KubeconfigSecret)
	idAfter, err := admin.Liqo.Identities(ns).Get(ctx, idBefore.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, idBefore.UID, idAfter.UID, "the slice keeps its Identity")
	secretAfter, err := admin.Kube.CoreV1().Secrets(ns).Get(ctx, secretBefore.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, secretBefore.UID, secretAfter.UID, "and its kubeconfig Secret")
	// The same ask again writes nothing.
	rsBefore, err := admin.Liqo.ResourceSlices(ns).Get(ctx, "cmd-slice", metav1.GetOptions{})
	require.NoError(t, err)
	code, _, errOut = run(consumer.args("create", "resourceslice", "cmd-slice", "--remote-cluster-id", provider.id, "--cpu", "3", "--memory", "1Gi",
		"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "already exists: nothing changed")
	rsAfter, err := admin.Liqo.ResourceSlices(ns).Get(ctx, "cmd-slice", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, rsBefore.ResourceVersion, rsAfter.ResourceVersion, "nothing written")
	// Bad input: one line, nothing written.
	code, _, errOut = run(consumer.args("create", "resourceslice", "cmd-slice", "--remote-cluster-id", provider.id, "--cpu", "lots")...)
	assert.NotEqual(t, cmd.ExitOK, code)
	require.Len(t, errorLines(errOut), 1, errOut)

	code, _, errOut = run(consumer.args("delete", "resourceslice", "cmd-slice", "--remote-cluster-id", provider.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Empty(t, getSlices(t, consumer, "--remote-cluster-id", provider.id))

	// --batch with both kubeconfigs: the handshake (already done: nothing
	// to do), then the slice.
	code, _, errOut = run(consumer.args("--batch", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace,
		"--resource-slice", "batch-slice", "--pods", "5", "--class", "custom")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "ResourceSlice batch-slice: authentication Accepted, resources left to the provider's plugins (class custom)")
	list = getSlices(t, consumer, "--remote-cluster-id", provider.id)
	require.Len(t, list, 1)
	assert.Equal(t, "batch-slice", list[0].Name)
	assert.Equal(t, "liqo-tenant-rs-provider/kubeconfig-resourceslice-batch-slice", list[0].KubeconfigSecret)
}

// Bad ResourceSlice requests exit non-zero with one clear line and write
// nothing to either cluster.
func TestResourceSliceBadInputsWriteNothing(t *testing.T) {
	provider, consumer := initSide(t, 0, "rsbad-provider"), initSide(t, 1, "rsbad-consumer")
	code, _, errOut := run(consumer.args("authenticate", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown provider", consumer.args("create", "resourceslice", "s", "--remote-cluster-id", "nobody"), "no authenticated provider nobody on this cluster: run `liqo-auth-tui authenticate` first"},
		{"bad quantity", consumer.args("create", "resourceslice", "s", "--remote-cluster-id", provider.id, "--cpu", "lots"), `cpu: "lots" is not a quantity`},
		{"negative quantity", consumer.args("create", "resourceslice", "s", "--remote-cluster-id", provider.id, "--pods", "-1"), "negative"},
		{"bad name", consumer.args("create", "resourceslice", "Bad_Name", "--remote-cluster-id", provider.id), `"Bad_Name" is not a valid ResourceSlice name`},
		{"bad provider ID", consumer.args("create", "resourceslice", "s", "--remote-cluster-id", "Bad_ID"), "DNS-1123"},
		{"own ID as provider", consumer.args("create", "resourceslice", "s", "--remote-cluster-id", consumer.id), "own ID"},
		{"no name", consumer.args("create", "resourceslice", "--remote-cluster-id", provider.id), "accepts 1 arg"},
		{"delete unknown", consumer.args("delete", "resourceslice", "nope", "--remote-cluster-id", provider.id), "no ResourceSlice nope for provider " + provider.id},
		{"get unknown", consumer.args("get", "resourceslice", "nope"), "no ResourceSlice nope on this cluster"},
		{"bad output", consumer.args("get", "resourceslice", "-o", "xml"), "unknown output format"},
		{"batch slice flags without a slice", consumer.args("--batch", "--remote-kubeconfig", provider.kubeconfig, "--cpu", "1"), "give --resource-slice NAME too"},
		{"batch bad slice", consumer.args("--batch", "--remote-kubeconfig", provider.kubeconfig, "--resource-slice", "s", "--memory", "much"), `memory: "much" is not a quantity`},
		{"batch slice on the provider", provider.args("--batch", "--role", "provider", "--remote-cluster-id", consumer.id, "--resource-slice", "s"), "asked by the consumer"},
	}
	ctx := labtest.Context(t)
	before := []map[string]string{objectListing(t, ctx, clusters(t)[0].Config), objectListing(t, ctx, clusters(t)[1].Config)}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
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

// A denied ResourceSlice is the provider's answer, printed as such, and
// the command fails with one line that says what was denied, why, and
// what to do, as the wizard's answer screen does.
func TestCreateResourceSliceDenied(t *testing.T) {
	provider, consumer := initSide(t, 0, "rsden-provider"), initSide(t, 1, "rsden-consumer")
	remote := []string{"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace}
	code, _, errOut := run(consumer.args(append([]string{"authenticate"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	code, _, errOut = run(provider.args("cordon", "tenant", consumer.id, "--yes")...)
	require.Equal(t, cmd.ExitOK, code, errOut)

	code, out, errOut := run(consumer.args(append([]string{"create", "resourceslice", "denied-slice", "--remote-cluster-id", provider.id, "--cpu", "1"}, remote...)...)...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "ResourceSlice denied-slice: authentication Accepted, resources Denied; kubeconfig Secret liqo-tenant-rsden-provider/kubeconfig-resourceslice-denied-slice")
	lines := errorLines(errOut)
	require.Len(t, lines, 1, errOut)
	assert.Contains(t, lines[0], "provider rsden-provider denied the resources of ResourceSlice denied-slice: the Tenant of consumer rsden-consumer is cordoned: no new resources")
	assert.Contains(t, lines[0], "`liqo-auth-tui delete resourceslice denied-slice --remote-cluster-id rsden-provider`")
	list := getSlices(t, consumer, "--remote-cluster-id", provider.id)
	require.Len(t, list, 1)
	assert.Equal(t, "Denied", list[0].Resources, "the slice stays, with the answer")
}

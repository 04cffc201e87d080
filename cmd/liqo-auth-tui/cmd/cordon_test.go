//go:build cluster && linux

package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// tenantRow is a Tenant as `get tenant -o json` prints it.
type tenantRow struct {
	Name           string `json:"name"`
	Condition      string `json:"condition"`
	Authenticated  bool   `json:"authenticated"`
	ResourceSlices []struct {
		Name      string `json:"name"`
		Resources string `json:"resources"`
		Cordoned  bool   `json:"cordoned"`
	} `json:"resourceSlices"`
}

func getTenant(t *testing.T, provider side, consumerID string) tenantRow {
	t.Helper()
	code, out, errOut := run(provider.args("get", "tenant", consumerID, "-o", "json")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	var row tenantRow
	require.NoError(t, json.Unmarshal([]byte(out), &row), out)
	return row
}

// authenticatedWithSlice authenticates consumer with provider and gets a
// slice accepted, both sides served in-process for each command.
func authenticatedWithSlice(t *testing.T, provider, consumer side, slice string) {
	code, _, errOut := run(consumer.args("authenticate", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	code, _, errOut = run(consumer.args("create", "resourceslice", slice, "--remote-cluster-id", provider.id, "--cpu", "1",
		"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
}

// runOnTerminal runs a command whose stdin and stdout are a terminal (a
// pty), answering its question with answer; stderr is returned.
func runOnTerminal(t *testing.T, answer string, args ...string) (int, string) {
	master, terminal := openPTY(t)
	_, err := master.WriteString(answer + "\n")
	require.NoError(t, err)
	var errOut bytes.Buffer
	code := cmd.Execute(args, terminal, terminal, &errOut, nil)
	return code, errOut.String()
}

// openPTY opens a pseudo-terminal: the side a user types into, and the
// terminal a command reads.
func openPTY(t *testing.T) (master, terminal *os.File) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { master.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	terminal, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { terminal.Close() })
	return master, terminal
}

// tenantBindings names the provider's RoleBindings and ClusterRoleBindings
// of a consumer's control-plane user (§6.5).
func tenantBindings(t *testing.T, provider *kube.Cluster, consumerID string) (roleBindings, clusterRoleBindings []string) {
	ctx := labtest.Context(t)
	sel := metav1.ListOptions{LabelSelector: labels.Set{kube.RemoteClusterIDLabel: consumerID, kube.ManagedByLabel: kube.LiqoManagedByValue}.String()}
	rbs, err := provider.Kube.RbacV1().RoleBindings(kube.TenantNamespaceName(consumerID)).List(ctx, sel)
	require.NoError(t, err)
	for _, rb := range rbs.Items {
		roleBindings = append(roleBindings, rb.Name)
	}
	crbs, err := provider.Kube.RbacV1().ClusterRoleBindings().List(ctx, sel)
	require.NoError(t, err)
	for _, crb := range crbs.Items {
		clusterRoleBindings = append(clusterRoleBindings, crb.Name)
	}
	return roleBindings, clusterRoleBindings
}

// waitSliceAnnotation waits until the provider's copy of the slice has the
// annotation with value ("" = without it).
func waitSliceAnnotation(t *testing.T, provider *kube.Cluster, ns, name, key, value string) {
	slices := provider.Liqo.ResourceSlices(ns)
	_, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(slices.List, slices.Watch, kube.ByName(name)), key+" on "+name,
		func(rs *authv1beta1.ResourceSlice) (bool, error) { return rs.Annotations[key] == value, nil })
	require.NoError(t, err)
}

// The provider's admin cordons, uncordons, drains and activates a
// consumer's Tenant and cordons one of its slices, as with liqoctl; the
// provider's controller acts on each; a change already made writes
// nothing; a declined question writes nothing.
func TestCordonUncordonDrainActivate(t *testing.T) {
	provider, consumer := initSide(t, 0, "cd-provider"), initSide(t, 1, "cd-consumer")
	startController(t, provider, "")
	authenticatedWithSlice(t, provider, consumer, "cd-slice")
	admin := adminOf(t, provider)
	ns := kube.TenantNamespaceName(consumer.id)
	tenantOf := func() *authv1beta1.Tenant {
		tn, err := admin.TenantFor(labtest.Context(t), ns, consumer.id)
		require.NoError(t, err)
		return tn
	}

	row := getTenant(t, provider, consumer.id)
	assert.Equal(t, "Active", row.Condition)
	assert.True(t, row.Authenticated)
	require.Len(t, row.ResourceSlices, 1)
	assert.Equal(t, "cd-slice", row.ResourceSlices[0].Name)
	assert.Equal(t, "Accepted", row.ResourceSlices[0].Resources)
	assert.False(t, row.ResourceSlices[0].Cordoned)

	// Cordon, answered yes on a terminal: the controller marks the slice.
	code, errOut := runOnTerminal(t, "yes", provider.args("cordon", "tenant", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "cordon is a potentially destructive command: consumer cd-consumer gets no new resources from this cluster (what it has stays)\nAre you sure you want to continue? [y/N]")
	assert.Contains(t, errOut, "(local) Tenant cd-consumer cordoned: the controller denies resources to its new ResourceSlices")
	assert.Equal(t, authv1beta1.TenantConditionCordoned, tenantOf().Spec.TenantCondition)
	waitSliceAnnotation(t, admin, ns, "cd-slice", kube.CordonTenantAnnotation, "true")
	code, out, errOut := run(provider.args("get", "tenant")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Regexp(t, `(?m)^cd-consumer\s+liqo-tenant-cd-consumer\s+Cordoned\s+yes\s+cd-slice$`, out)

	// Again: nothing to ask, nothing written.
	before := tenantOf().ResourceVersion
	code, _, errOut = run(provider.args("cordon", "tenant", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Tenant cd-consumer is already Cordoned: nothing changed")
	assert.Equal(t, before, tenantOf().ResourceVersion)

	// Drain, declined: nothing written.
	code, errOut = runOnTerminal(t, "n", provider.args("drain", "tenant", consumer.id)...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Contains(t, errOut, "drain is a potentially destructive command: consumer cd-consumer loses its permissions on this cluster")
	require.Len(t, errorLines(errOut), 1, errOut)
	assert.Contains(t, errorLines(errOut)[0], "drain not confirmed: nothing changed")
	assert.Equal(t, before, tenantOf().ResourceVersion)

	// Uncordon asks nothing, as liqoctl's: the controller unmarks the slice.
	code, _, errOut = run(provider.args("uncordon", "tenant", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Tenant cd-consumer uncordoned")
	waitSliceAnnotation(t, admin, ns, "cd-slice", kube.CordonTenantAnnotation, "")
	code, _, errOut = run(provider.args("uncordon", "tenant", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Tenant cd-consumer is already Active: nothing changed")

	// One slice: cordoned, again (nothing written), uncordoned.
	code, _, errOut = run(provider.args("cordon", "resourceslice", "cd-slice", "--remote-cluster-id", consumer.id, "--skip-confirm")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "ResourceSlice liqo-tenant-cd-consumer/cd-slice cordoned (annotation liqo.io/cordon)")
	assert.Contains(t, errOut, "This cluster does not run Liqo: only Liqo's offloading reads liqo.io/cordon")
	rs, err := admin.Liqo.ResourceSlices(ns).Get(labtest.Context(t), "cd-slice", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "true", rs.Annotations[kube.CordonResourceAnnotation])
	assert.True(t, getTenant(t, provider, consumer.id).ResourceSlices[0].Cordoned)
	code, out, errOut = run(provider.args("get", "tenant")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Regexp(t, `(?m)^cd-consumer\s+liqo-tenant-cd-consumer\s+Active\s+yes\s+cd-slice \(cordoned\)$`, out)
	code, _, errOut = run(provider.args("cordon", "resourceslice", "cd-slice", "--remote-cluster-id", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "ResourceSlice liqo-tenant-cd-consumer/cd-slice is already cordoned: nothing changed")
	code, _, errOut = run(provider.args("uncordon", "resourceslice", "cd-slice", "--remote-cluster-id", consumer.id, "-y")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	rs, err = admin.Liqo.ResourceSlices(ns).Get(labtest.Context(t), "cd-slice", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, rs.Annotations, kube.CordonResourceAnnotation)

	// Drain: the controller removes the consumer's bindings and slices.
	roleBindings, clusterRoleBindings := tenantBindings(t, admin, consumer.id)
	require.NotEmpty(t, roleBindings)
	require.NotEmpty(t, clusterRoleBindings)
	code, _, errOut = run(provider.args("drain", "tenant", consumer.id, "--yes")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Tenant cd-consumer drained: the controller removes its bindings and the ResourceSlices and NamespaceMaps replicated from it")
	for _, name := range roleBindings {
		rbs := admin.Kube.RbacV1().RoleBindings(ns)
		require.NoError(t, kube.WaitForDeletion(labtest.Context(t), kube.ListWatch(rbs.List, rbs.Watch, kube.ByName(name)), &rbacv1.RoleBinding{}, name))
	}
	for _, name := range clusterRoleBindings {
		crbs := admin.Kube.RbacV1().ClusterRoleBindings()
		require.NoError(t, kube.WaitForDeletion(labtest.Context(t), kube.ListWatch(crbs.List, crbs.Watch, kube.ByName(name)), &rbacv1.ClusterRoleBinding{}, name))
	}
	slices := admin.Liqo.ResourceSlices(ns)
	require.NoError(t, kube.WaitForDeletion(labtest.Context(t), kube.ListWatch(slices.List, slices.Watch, kube.ByName("cd-slice")), &authv1beta1.ResourceSlice{}, "cd-slice"))
	assert.Equal(t, "Drained", getTenant(t, provider, consumer.id).Condition)
	code, _, errOut = run(provider.args("drain", "tenant", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Tenant cd-consumer is already Drained: nothing changed")

	// A drained Tenant is not cordoned: one line, nothing written.
	before = tenantOf().ResourceVersion
	code, out, errOut = run(provider.args("cordon", "tenant", consumer.id, "--yes")...)
	assertRefused(t, code, out, errOut)
	assert.Contains(t, errOut, "Tenant cd-consumer is Drained and cordon changes only one that is Active: nothing changed (`liqo-auth-tui activate tenant cd-consumer` makes it Active)")
	assert.Equal(t, before, tenantOf().ResourceVersion)

	// Nor authenticated again, which would end with an Identity and no
	// rights: refused before any write, with the command that re-activates.
	code, _, errOut = run(consumer.args("authenticate", "--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace)...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Contains(t, errOut, "Tenant liqo-tenant-cd-consumer/cd-consumer of consumer cd-consumer is Drained on the provider: the consumer has no rights there")
	assert.Contains(t, errOut, "run `liqo-auth-tui activate tenant cd-consumer` on the provider")
	assert.Equal(t, before, tenantOf().ResourceVersion)

	// Activate: the bindings come back.
	code, _, errOut = run(provider.args("activate", "tenant", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Tenant cd-consumer activated")
	for _, name := range clusterRoleBindings {
		crbs := admin.Kube.RbacV1().ClusterRoleBindings()
		_, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(crbs.List, crbs.Watch, kube.ByName(name)), name,
			func(*rbacv1.ClusterRoleBinding) (bool, error) { return true, nil })
		require.NoError(t, err)
	}
}

// Bad input gets one line and writes nothing: an unknown consumer or
// slice, a slice of the consumer's own, a question declined or not
// askable (no terminal).
func TestCordonBadInputsWriteNothing(t *testing.T) {
	provider, consumer := initSide(t, 0, "cdbad-provider"), initSide(t, 1, "cdbad-consumer")
	authenticatedWithSlice(t, provider, consumer, "cdbad-slice")

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown consumer", provider.args("cordon", "tenant", "nobody", "--yes"), "no Tenant nobody on this cluster: its Tenants are "},
		{"unknown consumer, drain", provider.args("drain", "tenant", "nobody", "--yes"), "no Tenant nobody on this cluster: its Tenants are "},
		{"unknown consumer, uncordon", provider.args("uncordon", "tenant", "nobody"), "no Tenant nobody on this cluster"},
		{"unknown consumer, get", provider.args("get", "tenant", "nobody"), "no Tenant nobody on this cluster"},
		{"bad consumer ID", provider.args("cordon", "tenant", "Bad_ID", "--yes"), "the Tenant is named after the consumer's cluster ID"},
		{"no consumer", provider.args("drain", "tenant"), "accepts 1 arg"},
		{"unknown slice", provider.args("cordon", "resourceslice", "nope", "--remote-cluster-id", consumer.id, "--yes"),
			"no ResourceSlice nope of consumer cdbad-consumer on this cluster: its slices here are cdbad-slice"},
		{"slice of an unknown consumer", provider.args("uncordon", "resourceslice", "cdbad-slice", "--remote-cluster-id", "nobody", "--yes"),
			"no ResourceSlice cdbad-slice of consumer nobody on this cluster, which has no tenant namespace for it"},
		{"the consumer's own slice", consumer.args("cordon", "resourceslice", "cdbad-slice", "--remote-cluster-id", provider.id, "--yes"),
			"ResourceSlice liqo-tenant-cdbad-provider/cdbad-slice is this cluster's own request to provider cdbad-provider: cordon it on the provider, whose admin runs `liqo-auth-tui cordon resourceslice cdbad-slice --remote-cluster-id cdbad-consumer`"},
		{"slice without consumer", provider.args("cordon", "resourceslice", "cdbad-slice", "--yes"), `required flag(s) "remote-cluster-id" not set`},
		{"no terminal to ask", provider.args("drain", "tenant", consumer.id), "drain asks for confirmation and this is not a terminal: nothing changed; run again with --yes"},
		{"no terminal to ask, slice", provider.args("cordon", "resourceslice", "cdbad-slice", "--remote-cluster-id", consumer.id),
			"cordon asks for confirmation and this is not a terminal"},
		{"bad output", provider.args("get", "tenant", "-o", "xml"), "unknown output format"},
	}
	ctx := labtest.Context(t)
	before := []map[string]string{objectListing(t, ctx, clusters(t)[0].Config), objectListing(t, ctx, clusters(t)[1].Config)}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			assertRefused(t, code, out, errOut)
			require.Len(t, errorLines(errOut), 1, errOut)
			assert.Contains(t, errorLines(errOut)[0], tc.want)
		})
	}
	t.Run("declined on a terminal", func(t *testing.T) {
		for _, args := range [][]string{
			provider.args("cordon", "tenant", consumer.id),
			provider.args("cordon", "resourceslice", "cdbad-slice", "--remote-cluster-id", consumer.id),
		} {
			code, errOut := runOnTerminal(t, "", args...)
			assert.Equal(t, cmd.ExitFailure, code, errOut)
			assert.Contains(t, errOut, "Are you sure you want to continue? [y/N]")
			require.Len(t, errorLines(errOut), 1, errOut)
			assert.Contains(t, errorLines(errOut)[0], "cordon not confirmed: nothing changed")
			assert.NotContains(t, errOut, "INFO")
		}
	})
	for i := range before {
		assert.Empty(t, listingDiff(before[i], objectListing(t, ctx, clusters(t)[i].Config)), "cluster %d: bad inputs must write nothing", i)
	}
	// Nothing serves this provider (its side was served in-process for
	// each command): the condition is set and the admin told so.
	code, out, errOut := run(provider.args("cordon", "tenant", consumer.id, "--yes")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Tenant cdbad-consumer cordoned")
	assert.Contains(t, errOut, "No controller serves this cluster (neither Liqo nor liqo-auth-controller runs): nothing acts on the change until one does")

	// On the consumer, the provider has no Tenant.
	code, out, errOut = run(consumer.args("cordon", "tenant", provider.id, "--yes")...)
	assertRefused(t, code, out, errOut)
	assert.Contains(t, errOut, "no Tenant cdbad-provider on this cluster")
}

//go:build cluster

package cmd_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
	kubecfg "github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
)

// adminOf connects to a side with its admin kubeconfig.
func adminOf(t *testing.T, s side) *kube.Cluster {
	c, err := kube.Connect(kube.KubeconfigOptions{Path: s.kubeconfig, LiqoNamespace: s.liqoNamespace})
	require.NoError(t, err)
	return c
}

// startController runs the provider's reconcilers under the in-cluster
// controller's Lease with the admin's kubeconfig until the test ends: a
// controller runs on the provider, as `install controller` makes one.
// With an apiServer, it runs as if in a Pod of a Deployment whose
// --api-server-address-override is apiServer: the Deployment is there to
// read, and the reconcilers advertise it.
func startController(t *testing.T, s side, apiServer string) {
	c := adminOf(t, s)
	if apiServer != "" {
		ctx := labtest.Context(t)
		_, err := c.Kube.AppsV1().Deployments(s.liqoNamespace).Create(ctx,
			labtest.Deployment(kube.ControllerLeaseName, "controller", "--api-server-address-override="+apiServer), metav1.CreateOptions{})
		require.NoError(t, err)
	}
	m, err := controller.New(c, controller.Options{Provider: true, APIServerOverride: apiServer})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = controller.RunWithLease(ctx, c, kube.ControllerLeaseName, "test-"+s.id, controller.LeaseTiming{}, m, nil)
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-m.Synced():
	case <-time.After(30 * time.Second):
		t.Fatal("the provider's controller did not start")
	}
}

// generatePeeringUser runs `generate peering-user` on the provider and
// returns the kubeconfig file, once the API server authorizes its user.
func generatePeeringUser(t *testing.T, provider side, consumerID string) string {
	file := filepath.Join(t.TempDir(), "peering-user.kubeconfig")
	code, out, errOut := run(provider.args("generate", "peering-user", "--consumer-cluster-id", consumerID, "--output-file", file)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "liqo-auth-tui authenticate --kubeconfig <your kubeconfig> --remote-kubeconfig "+file+
		" --remote-liqo-namespace "+provider.liqoNamespace)
	eventuallyMay(t, file, provider.liqoNamespace, kube.Access{Verb: "get", Resource: "namespaces",
		Name: kube.TenantNamespaceName(consumerID), Namespace: kube.TenantNamespaceName(consumerID)}, true)
	return file
}

// eventuallyMay waits until the kubeconfig file's rights are what want says
// (RBAC changes reach the authorizer a moment after they are written).
func eventuallyMay(t *testing.T, kubeconfig, liqoNamespace string, a kube.Access, want bool) {
	c, err := kube.Connect(kube.KubeconfigOptions{Path: kubeconfig, LiqoNamespace: liqoNamespace})
	require.NoError(t, err)
	ctx := labtest.Context(t)
	require.Eventually(t, func() bool { return (c.CheckAccess(ctx, []kube.Access{a}) == nil) == want }, 10*time.Second, 50*time.Millisecond,
		"%s: want allowed=%v", a, want)
}

// The peering user's kubeconfig reaches the provider where the consumer's
// Identity does: here the in-cluster controller's
// --api-server-address-override, the lab's API server as localhost (in its
// certificate), not the admin kubeconfig's 127.0.0.1.
func TestPeeringUserKubeconfigAuthenticatesAlone(t *testing.T) {
	provider, consumer := initSide(t, 0, "pua-provider"), initSide(t, 1, "pua-consumer")
	adminServer := strings.TrimSuffix(adminOf(t, provider).Server, "/")
	u, err := url.Parse(adminServer)
	require.NoError(t, err)
	advertised := "https://localhost:" + u.Port()
	require.NotEqual(t, adminServer, advertised)
	startController(t, provider, advertised)
	file := generatePeeringUser(t, provider, consumer.id)
	info, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	kubeconfig, err := os.ReadFile(file)
	require.NoError(t, err)
	cert, err := kubecfg.ClientCertificate(kubeconfig)
	require.NoError(t, err)
	assert.Regexp(t, `^liqo-peer-user-pua-consumer-[0-9a-f]{32}$`, cert.Subject.CommonName)
	assert.Equal(t, []string{"liqo.io"}, cert.Subject.Organization)
	cfg, err := clientcmd.Load(kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, advertised, cfg.Clusters[consumer.id].Server)

	// The consumer's admin alone: the remote kubeconfig is the peering
	// user's, the provider is served by its controller.
	args := consumer.args("authenticate", "--remote-kubeconfig", file, "--remote-liqo-namespace", provider.liqoNamespace)
	code, _, errOut := run(args...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "(remote) provider side served by liqo-auth-controller (in-cluster; not checked")
	assert.Contains(t, errOut, "(remote) Tenant correctly applied on provider cluster")
	assert.Contains(t, errOut, "Consumer pua-consumer is authenticated with provider pua-provider")
	assert.NotContains(t, errOut, "PRIVATE KEY")
	ctx := labtest.Context(t)
	tenant, err := adminOf(t, provider).TenantFor(ctx, kube.TenantNamespaceName(consumer.id), consumer.id)
	require.NoError(t, err)
	assert.NotNil(t, tenant.Status.AuthParams)

	// Again: it completes and changes nothing.
	code, _, errOut = run(args...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	again, err := adminOf(t, provider).TenantFor(ctx, tenant.Namespace, consumer.id)
	require.NoError(t, err)
	assert.Equal(t, tenant.Spec, again.Spec)
}

func TestPeeringUserLackingAPermissionWritesNothing(t *testing.T) {
	provider, consumer := initSide(t, 0, "pub-provider"), initSide(t, 1, "pub-consumer")
	file := generatePeeringUser(t, provider, consumer.id)
	ctx := labtest.Context(t)
	admin := adminOf(t, provider)
	tenantNS := kube.TenantNamespaceName(consumer.id)

	// The tenant-namespace RoleBinding now grants Liqo's rules but
	// "create tenants".
	full, err := admin.Kube.RbacV1().ClusterRoles().Get(ctx, kube.PeeringUserTenantNSClusterRole, metav1.GetOptions{})
	require.NoError(t, err)
	lacking := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "pub-peering-user-but-create-tenants"}}
	for _, r := range full.Rules {
		if slices.Contains(r.Resources, "tenants") {
			r.Verbs = slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v == "create" })
		}
		lacking.Rules = append(lacking.Rules, r)
	}
	_, err = admin.Kube.RbacV1().ClusterRoles().Create(ctx, lacking, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = admin.Kube.RbacV1().ClusterRoles().Delete(context.Background(), lacking.Name, metav1.DeleteOptions{})
	})
	bindings := admin.Kube.RbacV1().RoleBindings(tenantNS)
	rb, err := bindings.Get(ctx, kube.PeeringUserTenantBindingName(consumer.id), metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, bindings.Delete(ctx, rb.Name, metav1.DeleteOptions{}))
	rb = &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: rb.Name, Namespace: tenantNS}, Subjects: rb.Subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: lacking.Name}}
	_, err = bindings.Create(ctx, rb, metav1.CreateOptions{})
	require.NoError(t, err)
	createTenants := kube.Access{Verb: "create", Group: "authentication.liqo.io", Resource: "tenants", Namespace: tenantNS}
	eventuallyMay(t, file, provider.liqoNamespace, createTenants, false)
	eventuallyMay(t, file, provider.liqoNamespace, kube.Access{Verb: "create", Resource: "secrets", Namespace: tenantNS}, true)

	before := [2]map[string]int{objectCount(t, ctx, provider.kubeconfig), objectCount(t, ctx, consumer.kubeconfig)}
	code, _, errOut := run(consumer.args("authenticate", "--remote-kubeconfig", file, "--remote-liqo-namespace", provider.liqoNamespace)...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	lines := errorLines(errOut)
	require.Len(t, lines, 1, errOut)
	assert.Contains(t, lines[0], "(remote) the kubeconfig (user liqo-peer-user-pub-consumer-")
	assert.Contains(t, lines[0], "may not create tenants.authentication.liqo.io in namespace liqo-tenant-pub-consumer")
	assert.NotContains(t, errOut, "Tenant namespace correctly ensured")
	assert.Equal(t, before, [2]map[string]int{objectCount(t, ctx, provider.kubeconfig), objectCount(t, ctx, consumer.kubeconfig)})
}

func TestPeeringUserNeedsAControllerOnTheProvider(t *testing.T) {
	provider, consumer := initSide(t, 0, "puc-provider"), initSide(t, 1, "puc-consumer")
	file := generatePeeringUser(t, provider, consumer.id)
	ctx := labtest.Context(t)
	admin := adminOf(t, provider)

	// It may not read the controller's Lease: it relies on a controller,
	// and without one the nonce never comes. It says so after a short
	// grace, long before its step timeout: the failure is not a timeout
	// (exit 124, "timed out") but what the provider's admin runs.
	before := [2]map[string]int{objectCount(t, ctx, provider.kubeconfig), objectCount(t, ctx, consumer.kubeconfig)}
	code, _, errOut := run(consumer.args("authenticate", "--remote-kubeconfig", file, "--remote-liqo-namespace", provider.liqoNamespace,
		"--step-timeout", "2m", "--timeout", "3m")...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	lines := errorLines(errOut)
	require.Len(t, lines, 1, errOut)
	assert.Contains(t, lines[0], "(remote) Failed waiting for nonce to be generated: nothing on provider puc-provider")
	assert.Contains(t, lines[0], "created the nonce within 10s: no controller seems to serve it")
	assert.Contains(t, lines[0], "its admin runs `liqo-auth-tui install controller` on the provider (or installs Liqo there)")
	assert.NotContains(t, lines[0], "timed out")
	assert.NotContains(t, lines[0], "step timeout")
	// Written: the handshake's first steps, which a controller installed
	// later serves on a re-run (the consumer's tenant namespace, the nonce
	// request on the provider); nothing past them.
	after := [2]map[string]int{objectCount(t, ctx, provider.kubeconfig), objectCount(t, ctx, consumer.kubeconfig)}
	for i, c := range before {
		for _, kind := range []string{"tenants", "identities", "csrs", "rolebindings", "clusterrolebindings"} {
			assert.Equal(t, c[kind], after[i][kind], "%s on cluster %d", kind, i)
		}
	}
	assert.Equal(t, before[0]["secrets"]+1, after[0]["secrets"], "the provider: the nonce request only")
	assert.Equal(t, before[1]["secrets"], after[1]["secrets"], "the consumer: no signed nonce")
	nonce, err := admin.NonceSecret(ctx, kube.TenantNamespaceName(consumer.id), consumer.id)
	require.NoError(t, err)
	assert.Empty(t, nonce.Data[kube.NonceField], "nothing filled the nonce")

	// Allowed to see that no controller runs, it names what running one
	// in-process would need.
	args := consumer.args("authenticate", "--remote-kubeconfig", file, "--remote-liqo-namespace", provider.liqoNamespace, "--step-timeout", "2s")
	kubeconfig, err := os.ReadFile(file)
	require.NoError(t, err)
	cert, err := kubecfg.ClientCertificate(kubeconfig)
	require.NoError(t, err)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "puc-lease-reader", Namespace: provider.liqoNamespace},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get"}}}}
	_, err = admin.Kube.RbacV1().Roles(role.Namespace).Create(ctx, role, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.Kube.RbacV1().RoleBindings(role.Namespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: role.Namespace},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: cert.Subject.CommonName}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	eventuallyMay(t, file, provider.liqoNamespace, kube.Access{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: provider.liqoNamespace}, true)
	code, _, errOut = run(args...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	lines = errorLines(errOut)
	require.Len(t, lines, 1, errOut)
	assert.Contains(t, lines[0], "may not list leases.coordination.k8s.io in namespace liqo-puc-provider: no controller serves the provider side")
	assert.Contains(t, lines[0], "liqo-auth-tui install controller")
}

func TestDeletePeeringUser(t *testing.T) {
	provider, consumer := initSide(t, 0, "pud-provider"), initSide(t, 1, "pud-consumer")
	consumerID := consumer.id
	code, out, errOut := run(provider.args("generate", "peering-user", "--consumer-cluster-id", consumerID)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, out, "client-key-data")
	assert.NotContains(t, errOut, "client-key-data")
	assert.Contains(t, errOut, "--remote-kubeconfig peering-user.kubeconfig")
	assert.Contains(t, errOut, "(local) RoleBinding liqo-tenant-pud-consumer/liqo-peer-user-pud-consumer-tenant-ns-writer created")
	file := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(file, []byte(out), 0o600))
	readConfig := kube.Access{Verb: "list", Resource: "configmaps", Namespace: provider.liqoNamespace}
	eventuallyMay(t, file, provider.liqoNamespace, readConfig, true)

	code, _, errOut = run(provider.args("delete", "peering-user", "--consumer-cluster-id", consumerID)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "(local) RoleBinding liqo-tenant-pud-consumer/liqo-peer-user-pud-consumer-tenant-ns-writer deleted")
	assert.Contains(t, errOut, "(local) CertificateSigningRequest liqo-peer-user-pud-consumer deleted")
	assert.Contains(t, errOut, "Peering user of consumer pud-consumer deleted")
	ctx := labtest.Context(t)
	admin := adminOf(t, provider)
	left, err := admin.Kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{LabelSelector: "liqo.io/peering-user-name=liqo-peer-user-" + consumerID})
	require.NoError(t, err)
	assert.Empty(t, left.Items)
	_, err = admin.Kube.CertificatesV1().CertificateSigningRequests().Get(ctx, "liqo-peer-user-"+consumerID, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "%v", err)
	eventuallyMay(t, file, provider.liqoNamespace, readConfig, false)
	code, _, errOut = run(consumer.args("authenticate", "--remote-kubeconfig", file, "--remote-liqo-namespace", provider.liqoNamespace)...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Contains(t, errOut, "(remote)")
	assert.Contains(t, errOut, "forbidden")

	code, _, errOut = run(provider.args("delete", "peering-user", "--consumer-cluster-id", consumerID)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "No peering user for consumer pud-consumer: nothing to delete")

	// Usage mistakes: one line, exit 2, nothing written.
	for _, args := range [][]string{
		provider.args("generate", "peering-user", "--consumer-cluster-id", "Bad_ID"),
		provider.args("generate", "peering-user"),
		provider.args("generate", "peering-user", "--consumer-cluster-id", "x", "--key-type", "dsa"),
		provider.args("delete", "peering-user", "--consumer-cluster-id", "Bad_ID"),
	} {
		code, _, errOut := run(args...)
		assert.Equal(t, cmd.ExitUsage, code, "%v: %s", args, errOut)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: %s", args, errOut)
	}
}

//go:build cluster

package kube_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/assets"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kubecfg "github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
)

// peeringUserCluster connects with a peering user's kubeconfig.
func peeringUserCluster(t *testing.T, kubeconfig []byte, liqoNamespace string) *kube.Cluster {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	require.NoError(t, err)
	c, err := kube.NewCluster(cfg, liqoNamespace)
	require.NoError(t, err)
	return c
}

// eventuallyAccess waits until the kubeconfig's rights are what want says
// (RBAC changes reach the authorizer a moment after they are written).
func eventuallyAccess(t *testing.T, ctx context.Context, c *kube.Cluster, a kube.Access, want bool) {
	t.Helper()
	require.Eventually(t, func() bool {
		err := c.CheckAccess(ctx, []kube.Access{a})
		return (err == nil) == want
	}, 10*time.Second, 50*time.Millisecond, "%s: want allowed=%v", a, want)
}

func TestInitInstallsPeeringUserRoles(t *testing.T) {
	ctx := labtest.Context(t)
	c, err := kube.NewCluster(clusters(t)[0].Config, "liqo-pu-roles")
	require.NoError(t, err)
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: "pu-roles"})
	require.NoError(t, err)

	// What is installed is what assets embeds (TestPeeringUserRoles checks
	// that against Liqo's chart); the Role is in this Liqo namespace.
	docs, err := assets.PeeringUserManifests()
	require.NoError(t, err)
	var wantRole rbacv1.Role
	var wantClusterRole rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal(docs[0], &wantRole))
	require.NoError(t, yaml.Unmarshal(docs[1], &wantClusterRole))
	role, err := c.Kube.RbacV1().Roles(c.Namespace).Get(ctx, kube.PeeringUserLiqoNSRole, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, wantRole.Labels, role.Labels)
	assert.Equal(t, wantRole.Rules, role.Rules)
	cr, err := c.Kube.RbacV1().ClusterRoles().Get(ctx, kube.PeeringUserTenantNSClusterRole, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, wantClusterRole.Labels, cr.Labels)
	assert.Equal(t, wantClusterRole.Rules, cr.Rules)

	again, err := c.Init(ctx, kube.InitOptions{})
	require.NoError(t, err)
	assert.Contains(t, again.Changes, kube.Change{Object: "Role " + kube.PeeringUserLiqoNSRole, Action: kube.Unchanged})
	assert.Contains(t, again.Changes, kube.Change{Object: "ClusterRole " + kube.PeeringUserTenantNSClusterRole, Action: kube.Unchanged})
}

func TestPeeringUserIsLiqosAndMayDoOnlyWhatItsRolesSay(t *testing.T) {
	ctx := labtest.Context(t)
	lc := clusters(t)[0]
	provider, err := kube.NewCluster(lc.Config, "liqo-pu-provider")
	require.NoError(t, err)
	_, err = provider.Init(ctx, kube.InitOptions{ClusterID: "pu-provider"})
	require.NoError(t, err)
	const consumerID = "pu-consumer"
	tenantNS := kube.TenantNamespaceName(consumerID)
	userName := "liqo-peer-user-" + consumerID

	var reported []kube.Change
	kubeconfig, err := provider.GeneratePeeringUser(ctx, consumerID, kube.PeeringUserOptions{Report: func(ch kube.Change) { reported = append(reported, ch) }})
	require.NoError(t, err)
	assert.Contains(t, reported, kube.Change{Object: "Namespace " + tenantNS, Action: kube.Created})
	assert.Contains(t, reported, kube.Change{Object: "CertificateSigningRequest " + userName, Action: kube.Created})

	// The kubeconfig, as liqoctl writes it.
	cfg, err := clientcmd.Load(kubeconfig)
	require.NoError(t, err)
	require.Equal(t, "default-context", cfg.CurrentContext)
	ctxt := cfg.Contexts["default-context"]
	assert.Equal(t, consumerID, ctxt.Cluster)
	assert.Equal(t, consumerID+"-user", ctxt.AuthInfo)
	assert.Equal(t, tenantNS, ctxt.Namespace)
	assert.Equal(t, lc.Config.Host, cfg.Clusters[consumerID].Server)
	assert.Equal(t, lc.Config.CAData, cfg.Clusters[consumerID].CertificateAuthorityData)
	cert, err := kubecfg.ClientCertificate(kubeconfig)
	require.NoError(t, err)
	assert.Regexp(t, `^liqo-peer-user-pu-consumer-[0-9a-f]{32}$`, cert.Subject.CommonName)
	assert.Equal(t, []string{"liqo.io"}, cert.Subject.Organization)

	// The CSR object and the two RoleBindings, with Liqo's names and labels.
	csr, err := provider.Kube.CertificatesV1().CertificateSigningRequests().Get(ctx, userName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, userName, csr.Labels["liqo.io/peering-user-name"])
	assert.Equal(t, "kubernetes.io/kube-apiserver-client", csr.Spec.SignerName)
	subject := []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: cert.Subject.CommonName}}
	writer, err := provider.Kube.RbacV1().RoleBindings(tenantNS).Get(ctx, userName+"-tenant-ns-writer", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"liqo.io/peering-user-name": userName}, writer.Labels)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "liqo-peering-user-tenant-ns"}, writer.RoleRef)
	assert.Equal(t, subject, writer.Subjects)
	reader, err := provider.Kube.RbacV1().RoleBindings(provider.Namespace).Get(ctx, userName+"-liqo-ns-reader", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"liqo.io/peering-user-name": userName}, reader.Labels)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "liqo-peering-user-liqo-ns"}, reader.RoleRef)
	assert.Equal(t, subject, reader.Subjects)

	// What the roles say, and nothing more (kubectl auth can-i).
	user := peeringUserCluster(t, kubeconfig, provider.Namespace)
	who, groups, err := user.WhoAmI(ctx)
	require.NoError(t, err)
	assert.Equal(t, cert.Subject.CommonName, who)
	assert.Contains(t, groups, "liqo.io")
	eventuallyAccess(t, ctx, user, kube.Access{Verb: "create", Group: "authentication.liqo.io", Resource: "tenants", Namespace: tenantNS}, true)
	for _, a := range []kube.Access{
		{Verb: "list", Resource: "configmaps", Namespace: provider.Namespace},
		{Verb: "get", Resource: "namespaces", Name: tenantNS, Namespace: tenantNS},
		{Verb: "create", Resource: "secrets", Namespace: tenantNS},
		{Verb: "list", Resource: "secrets", Namespace: tenantNS},
		{Verb: "update", Group: "authentication.liqo.io", Resource: "tenants", Namespace: tenantNS},
		{Verb: "get", Resource: "services", Namespace: tenantNS},
	} {
		assert.NoError(t, user.CheckAccess(ctx, []kube.Access{a}), a.String())
	}
	for _, a := range []kube.Access{
		{Verb: "get", Resource: "secrets", Name: "authentication-keys", Namespace: provider.Namespace},
		{Verb: "list", Resource: "secrets"},
		{Verb: "watch", Resource: "secrets", Namespace: tenantNS},
		{Verb: "update", Resource: "secrets", Namespace: tenantNS},
		{Verb: "list", Resource: "namespaces"},
		{Verb: "create", Resource: "namespaces"},
		{Verb: "list", Resource: "events", Namespace: tenantNS},
		{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: provider.Namespace},
		{Verb: "watch", Group: "authentication.liqo.io", Resource: "tenants", Namespace: tenantNS},
		{Verb: "update", Group: "authentication.liqo.io", Resource: "tenants/status", Namespace: tenantNS},
		{Verb: "create", Resource: "rolebindings", Group: "rbac.authorization.k8s.io", Namespace: tenantNS},
		{Verb: "create", Group: "certificates.k8s.io", Resource: "certificatesigningrequests"},
		{Verb: "delete", Resource: "configmaps", Namespace: provider.Namespace},
		{Verb: "create", Resource: "secrets", Namespace: kube.TenantNamespaceName("someone-else")},
	} {
		err := user.CheckAccess(ctx, []kube.Access{a})
		var denied *kube.AccessDeniedError
		if assert.ErrorAs(t, err, &denied, a.String()) {
			assert.Equal(t, cert.Subject.CommonName, denied.User)
			assert.Contains(t, err.Error(), "may not "+a.String())
		}
	}

	// Again: a new key and certificate in the same RoleBindings and a new
	// CSR object; the first kubeconfig loses its rights.
	reported = nil
	second, err := provider.GeneratePeeringUser(ctx, consumerID, kube.PeeringUserOptions{Report: func(ch kube.Change) { reported = append(reported, ch) }})
	require.NoError(t, err)
	assert.Contains(t, reported, kube.Change{Object: "Namespace " + tenantNS, Action: kube.Unchanged})
	assert.Contains(t, reported, kube.Change{Object: "CertificateSigningRequest " + userName, Action: kube.Updated})
	assert.Contains(t, reported, kube.Change{Object: "RoleBinding " + tenantNS + "/" + userName + "-tenant-ns-writer", Action: kube.Updated})
	cert2, err := kubecfg.ClientCertificate(second)
	require.NoError(t, err)
	assert.NotEqual(t, cert.Subject.CommonName, cert2.Subject.CommonName)
	writer2, err := provider.Kube.RbacV1().RoleBindings(tenantNS).Get(ctx, writer.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, writer.UID, writer2.UID)
	assert.Equal(t, cert2.Subject.CommonName, writer2.Subjects[0].Name)
	csr2, err := provider.Kube.CertificatesV1().CertificateSigningRequests().Get(ctx, userName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, csr.UID, csr2.UID)
	createTenants := kube.Access{Verb: "create", Group: "authentication.liqo.io", Resource: "tenants", Namespace: tenantNS}
	eventuallyAccess(t, ctx, user, createTenants, false)
	user2 := peeringUserCluster(t, second, provider.Namespace)
	eventuallyAccess(t, ctx, user2, createTenants, true)

	// Deleted: RoleBindings and CSR go, the kubeconfig may do nothing more;
	// deleting again changes nothing.
	changes, err := provider.DeletePeeringUser(ctx, consumerID)
	require.NoError(t, err)
	assert.ElementsMatch(t, []kube.Change{
		{Object: "RoleBinding " + tenantNS + "/" + userName + "-tenant-ns-writer", Action: kube.Deleted},
		{Object: "RoleBinding " + provider.Namespace + "/" + userName + "-liqo-ns-reader", Action: kube.Deleted},
		{Object: "CertificateSigningRequest " + userName, Action: kube.Deleted},
	}, changes)
	eventuallyAccess(t, ctx, user2, createTenants, false)
	eventuallyAccess(t, ctx, user2, kube.Access{Verb: "list", Resource: "configmaps", Namespace: provider.Namespace}, false)
	_, err = user2.ClusterID(ctx)
	assert.Error(t, err)
	changes, err = provider.DeletePeeringUser(ctx, consumerID)
	require.NoError(t, err)
	assert.Empty(t, changes)
}

func TestGeneratePeeringUserNeedsTheRoles(t *testing.T) {
	ctx := labtest.Context(t)
	c, err := kube.NewCluster(clusters(t)[1].Config, "liqo-pu-noroles")
	require.NoError(t, err)
	_, err = c.GeneratePeeringUser(ctx, "Bad_ID", kube.PeeringUserOptions{})
	assert.ErrorContains(t, err, "invalid cluster ID")
	// No Role in this Liqo namespace: nothing is written.
	_, err = c.GeneratePeeringUser(ctx, "pu-noroles-consumer", kube.PeeringUserOptions{})
	assert.ErrorContains(t, err, "run `liqo-auth-tui init`")
	_, err = c.Kube.CoreV1().Namespaces().Get(ctx, kube.TenantNamespaceName("pu-noroles-consumer"), metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "%v", err)
}

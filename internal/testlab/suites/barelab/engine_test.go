//go:build cluster

package barelab_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// failedLines collects the failure lines of a flow.
type failedLines struct{ lines []string }

func (f *failedLines) sink(ev handshake.Event) {
	if ev.Kind == handshake.StepFailed {
		f.lines = append(f.lines, ev.Step+": "+ev.Message)
	}
}

func cluster(t *testing.T, cfg *rest.Config, ns string) *kube.Cluster {
	t.Helper()
	c, err := kube.NewCluster(cfg, ns)
	require.NoError(t, err)
	return c
}

func initCluster(t *testing.T, c *kube.Cluster, id string) {
	t.Helper()
	_, err := c.Init(labtest.Context(t), kube.InitOptions{ClusterID: id})
	require.NoError(t, err)
}

// A provider where `init` never ran has no Tenant CRD: the in-process
// controllers cannot start there, and the engines step fails at once with
// that cause, not a wait running into its timeout a minute later.
func TestAuthenticateProviderWithoutCRDsFailsAtOnce(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx := labtest.Context(t)
	consumer := cluster(t, cs[0].Config, "liqo-bare-consumer")
	initCluster(t, consumer, "bare-consumer")
	// The bare provider: a Liqo namespace and a cluster ID, nothing else.
	provider := cluster(t, cs[1].Config, "liqo-bare-provider")
	_, err := provider.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: provider.Namespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = provider.Kube.CoreV1().ConfigMaps(provider.Namespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: kube.ClusterIDConfigMapName, Labels: map[string]string{"app.kubernetes.io/name": "clusterid-configmap"}},
		Data:       map[string]string{kube.ClusterIDKey: "bare-provider"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = provider.Liqo.Tenants("").List(ctx, metav1.ListOptions{})
	require.True(t, kube.IsNotFound(err), "the bare cluster serves Tenants: %v", err)

	var rec failedLines
	start := time.Now()
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: time.Minute}, rec.sink)
	took := time.Since(start)
	t.Logf("failed after %s: %v", took.Round(time.Millisecond), err)
	require.Error(t, err)
	var se *flows.StepError
	require.True(t, errors.As(err, &se), "%T", err)
	assert.Equal(t, "engines", se.Step)
	var ee *flows.EngineError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, handshake.RoleProvider, ee.Role)
	assert.Contains(t, err.Error(), "CRD tenants.authentication.liqo.io is not installed on the provider")
	assert.Contains(t, err.Error(), "run `liqo-auth-tui init`")
	assert.Equal(t, []string{"engines: " + se.Line}, rec.lines)
	assert.Less(t, took, 10*time.Second, "not a wait running into its timeout")
}

// A provider kubeconfig whose user may do everything but list Tenants
// fails the engines step at once with a line naming that permission.
func TestAuthenticateForbiddenListFailsAtOnce(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx := labtest.Context(t)
	admin := cluster(t, cs[0].Config, "liqo-fb-provider")
	initCluster(t, admin, "fb-provider")
	consumer := cluster(t, cs[0].Config, "liqo-fb-consumer")
	initCluster(t, consumer, "fb-consumer")

	// Every resource of every group, except list on Tenants (RBAC only
	// allows: the rules name every other resource).
	groups, err := admin.Kube.Discovery().ServerGroups()
	require.NoError(t, err)
	var others []string
	for _, g := range groups.Groups {
		if g.Name != authv1beta1.GroupVersion.Group {
			others = append(others, g.Name)
		}
	}
	liqo, err := admin.Kube.Discovery().ServerResourcesForGroupVersion(authv1beta1.GroupVersion.String())
	require.NoError(t, err)
	var liqoOthers []string
	for _, r := range liqo.APIResources {
		if r.Name != "tenants" {
			liqoOthers = append(liqoOthers, r.Name)
		}
	}
	const user = "no-tenant-list"
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{
		{APIGroups: others, Resources: []string{"*"}, Verbs: []string{"*"}},
		{APIGroups: []string{authv1beta1.GroupVersion.Group}, Resources: liqoOthers, Verbs: []string{"*"}},
		{APIGroups: []string{authv1beta1.GroupVersion.Group}, Resources: []string{"tenants"},
			Verbs: []string{"get", "watch", "create", "update", "patch", "delete"}},
	}}
	_, err = admin.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.Kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := rest.CopyConfig(cs[0].Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	provider := cluster(t, cfg, admin.Namespace)

	var rec failedLines
	start := time.Now()
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: time.Minute}, rec.sink)
	took := time.Since(start)
	t.Logf("failed after %s: %v", took.Round(time.Millisecond), err)
	require.Error(t, err)
	var se *flows.StepError
	require.True(t, errors.As(err, &se), "%T", err)
	assert.Equal(t, "engines", se.Step)
	assert.Contains(t, err.Error(), "list")
	assert.Contains(t, err.Error(), "tenants")
	assert.Less(t, took, 10*time.Second)
}

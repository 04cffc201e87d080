//go:build cluster

package flows_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// recorder collects the success lines of a flow, with their scope, and its
// notes. Sinks are called from several goroutines (both sides' engines
// report at once).
type recorder struct {
	mu          sync.Mutex
	done, notes []string
}

func (r *recorder) sink(ev handshake.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Kind {
	case handshake.StepDone:
		r.done = append(r.done, "("+string(ev.Scope)+") "+ev.Message)
	case handshake.Note:
		r.notes = append(r.notes, ev.Message)
	}
}

func TestAuthenticateEndToEnd(t *testing.T) {
	provider, consumer := pair(t, "auth-provider", "auth-consumer")
	ctx := labtest.Context(t)
	var rec recorder
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, rec.sink)
	require.NoError(t, err)
	assert.Equal(t, "auth-consumer", res.ConsumerID)
	assert.Equal(t, "auth-provider", res.ProviderID)
	assert.Equal(t, flows.EngineInProcess, res.ProviderEngine)
	assert.Equal(t, flows.EngineInProcess, res.ConsumerEngine)
	assert.Subset(t, rec.done, []string{
		"(local) Tenant namespace correctly ensured", "(remote) Tenant namespace correctly ensured",
		"(remote) Nonce secret ensured", "(remote) Nonce generated successfully", "(remote) Nonce retrieved",
		"(local) Signed nonce secret ensured", "(local) Nonce is signed", "(local) Signed nonce retrieved",
		"(local) Tenant correctly generated", "(remote) Tenant correctly applied on provider cluster",
		"(remote) Tenant status is filled", "(remote) Identity correctly generated",
		"(local) Identity correctly applied on consumer cluster", "(local) Identity status is filled",
	})
	assert.Contains(t, rec.notes, "provider side served by in-process controller")

	// The kubeconfig reaches the provider as the consumer, with narrow rights.
	v, err := flows.Verify(ctx, consumer, "auth-provider", nil)
	require.NoError(t, err)
	assert.Equal(t, "auth-consumer", v.User)
	assert.Contains(t, v.Groups, "liqo.io")
	assert.Equal(t, kube.TenantNamespaceName("auth-consumer"), v.TenantNamespace)
	for _, want := range []string{
		"list resourceslices.authentication.liqo.io -n liqo-tenant-auth-consumer",
		"create renews.authentication.liqo.io -n liqo-tenant-auth-consumer",
		"update namespacemaps.offloading.liqo.io -n liqo-tenant-auth-consumer",
	} {
		assert.Contains(t, v.Allowed, want)
	}
	for _, want := range []string{
		"get secrets -n liqo-tenant-auth-consumer", "list namespaces (cluster-wide)",
		"list resourceslices.authentication.liqo.io -n liqo",
	} {
		assert.Contains(t, v.Denied, want)
	}
	// ... and is denied the same resources in another consumer's tenant namespace.
	other, _, err := provider.EnsureTenantNamespace(ctx, "someone-else")
	require.NoError(t, err)
	cfg := kubeconfigOf(t, ctx, consumer, "auth-provider")
	oc, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	review, err := oc.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authzv1.ResourceAttributes{Verb: "list", Group: "authentication.liqo.io", Resource: "resourceslices", Namespace: other.Name}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.False(t, review.Status.Allowed)
	// A real list works in its own namespace and fails in the other one.
	_, err = oc.Liqo.ResourceSlices(v.TenantNamespace).List(ctx, metav1.ListOptions{})
	assert.NoError(t, err)
	_, err = oc.Liqo.ResourceSlices(other.Name).List(ctx, metav1.ListOptions{})
	assert.Error(t, err)

	// The provider deleted the CSR objects it created.
	csrs, err := provider.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{LabelSelector: kube.RemoteTenantCSRLabel})
	require.NoError(t, err)
	assert.Empty(t, csrs.Items)

	// Re-running changes nothing.
	before := snapshot(t, ctx, provider, consumer, "auth-provider", "auth-consumer")
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	assert.Equal(t, before, snapshot(t, ctx, provider, consumer, "auth-provider", "auth-consumer"))

	// Unauthenticate: the old certificate is authorized for nothing.
	_, err = flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	after, err := flows.VerifyConfig(ctx, cfg, v.TenantNamespace)
	require.NoError(t, err)
	assert.Empty(t, after.Allowed)
	_, err = consumer.KubeconfigSecretFor(ctx, "auth-provider")
	assert.True(t, kube.IsNotFound(err), "kubeconfig Secret goes with its Identity: %v", err)

	// ... and authenticating again works.
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	v, err = flows.Verify(ctx, consumer, "auth-provider", nil)
	require.NoError(t, err)
	assert.NotEmpty(t, v.Allowed)
}

func kubeconfigOf(t *testing.T, ctx context.Context, consumer *kube.Cluster, providerID string) *rest.Config {
	s, err := consumer.KubeconfigSecretFor(ctx, providerID)
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	return cfg
}

// snapshot records the resourceVersions of everything the handshake writes.
func snapshot(t *testing.T, ctx context.Context, provider, consumer *kube.Cluster, providerID, consumerID string) map[string]string {
	out := map[string]string{}
	pns, cns := kube.TenantNamespaceName(consumerID), kube.TenantNamespaceName(providerID)
	for _, x := range []struct {
		c  *kube.Cluster
		ns string
	}{{provider, pns}, {consumer, cns}} {
		secrets, err := x.c.Kube.CoreV1().Secrets(x.ns).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for _, s := range secrets.Items {
			out["secret/"+s.Namespace+"/"+s.Name] = s.ResourceVersion
		}
		rbs, err := x.c.Kube.RbacV1().RoleBindings(x.ns).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for _, b := range rbs.Items {
			out["rolebinding/"+b.Namespace+"/"+b.Name] = b.ResourceVersion
		}
	}
	tn, err := provider.TenantFor(ctx, pns, consumerID)
	require.NoError(t, err)
	out["tenant"] = tn.ResourceVersion
	id, err := consumer.ControlPlaneIdentityFor(ctx, providerID)
	require.NoError(t, err)
	out["identity"] = id.ResourceVersion
	crbs, err := provider.Kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{LabelSelector: kube.RemoteClusterIDLabel + "=" + consumerID})
	require.NoError(t, err)
	for _, b := range crbs.Items {
		out["clusterrolebinding/"+b.Name] = b.ResourceVersion
	}
	return out
}

// A flow interrupted after any step completes when started again.
func TestInterruptedAuthenticateCompletesWhenRerun(t *testing.T) {
	provider, consumer := pair(t, "intr-provider", "intr-consumer")
	for _, stopAfter := range []string{"nonce-secret", "signed-nonce-secret", "apply-tenant", "apply-identity"} {
		t.Run(stopAfter, func(t *testing.T) {
			ctx, cancel := context.WithCancel(labtest.Context(t))
			_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, func(ev handshake.Event) {
				if ev.Kind == handshake.StepDone && ev.Step == stopAfter {
					cancel()
				}
			})
			cancel()
			var se *flows.StepError
			require.True(t, errors.As(err, &se), "interrupted flow must fail: %v", err)
			res, err := flows.Authenticate(labtest.Context(t), flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
			require.NoError(t, err)
			assert.NotEmpty(t, res.KubeconfigSecret)
			_, err = flows.Unauthenticate(labtest.Context(t), flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil)
			require.NoError(t, err)
		})
	}
}

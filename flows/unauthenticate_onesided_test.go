//go:build cluster

package flows_test

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Provider gone: the consumer's Identity and kubeconfig Secret are removed,
// the provider is not touched, and the leftovers told are exactly what is
// there: their commands, run on the provider, remove all of it.
func TestUnauthenticateConsumerOnly(t *testing.T) {
	provider, consumer := pair(t, "os-provider-a", "os-consumer-a")
	ctx := labtest.Context(t)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	before := providerState(t, ctx, provider, "os-consumer-a")
	require.Contains(t, before, "tenant")
	require.Contains(t, before, "secret/"+kube.RemoteCertSecretName)
	require.NotEmpty(t, consumerState(t, ctx, consumer, "os-provider-a"))

	notes := &noteSink{}
	res, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, ProviderID: "os-provider-a"}, notes.sink)
	require.NoError(t, err)
	assert.Empty(t, consumerState(t, ctx, consumer, "os-provider-a"), "Identity and kubeconfig Secret removed")
	assert.Equal(t, before, providerState(t, ctx, provider, "os-consumer-a"), "the provider is not touched")

	require.NotEmpty(t, res.Leftovers)
	for _, l := range res.Leftovers {
		assert.Equal(t, handshake.RoleProvider, l.Role, l.What)
		assert.True(t, notes.has(l.Command), "told: %s", l.Command)
	}
	runLeftovers(t, clusters(t)[0].KubeconfigPath, res.Leftovers)
	tenants := provider.Liqo.Tenants(kube.TenantNamespaceName("os-consumer-a"))
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(tenants.List, tenants.Watch, kube.ByName("os-consumer-a")), &authv1beta1.Tenant{}, "Tenant"))
	assert.Empty(t, providerState(t, ctx, provider, "os-consumer-a"), "the commands told remove everything")
}

// Consumer gone: the provider's Tenant, bindings and cached certificate are
// removed (no controller runs there: the command does its cleanup), the
// consumer is not touched, and the leftovers' commands remove its side.
func TestUnauthenticateProviderOnly(t *testing.T) {
	provider, consumer := pair(t, "os-provider-b", "os-consumer-b")
	ctx := labtest.Context(t)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	before := consumerState(t, ctx, consumer, "os-provider-b")
	require.Len(t, before, 2, "Identity and kubeconfig Secret")

	notes := &noteSink{}
	res, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Provider: provider, ConsumerID: "os-consumer-b"}, notes.sink)
	require.NoError(t, err)
	assert.Empty(t, providerState(t, ctx, provider, "os-consumer-b"), "Tenant, bindings and cached certificate removed")
	assert.Equal(t, before, consumerState(t, ctx, consumer, "os-provider-b"), "the consumer is not touched")

	require.NotEmpty(t, res.Leftovers)
	for _, l := range res.Leftovers {
		assert.Equal(t, handshake.RoleConsumer, l.Role, l.What)
		assert.True(t, notes.has(l.Command), "told: %s", l.Command)
	}
	runLeftovers(t, clusters(t)[1].KubeconfigPath, res.Leftovers)
	assert.Empty(t, consumerState(t, ctx, consumer, "os-provider-b"), "the commands told remove everything")

	// Run again: nothing left to do, no error.
	_, err = flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Provider: provider, ConsumerID: "os-consumer-b"}, nil)
	require.NoError(t, err)
}

// Bad one-sided options are refused before anything is asked.
func TestUnauthenticateOneSidedNeedsTheOtherID(t *testing.T) {
	for _, o := range []flows.UnauthenticateOptions{
		{},
		{Consumer: &kube.Cluster{}},
		{Provider: &kube.Cluster{}},
		{Provider: &kube.Cluster{}, ConsumerID: "not a cluster id; rm -rf"},
	} {
		_, err := flows.Unauthenticate(context.Background(), o, func(ev handshake.Event) { t.Errorf("progress before the refusal: %v", ev) })
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "\n")
	}
}

// A Tenant deleted while its controller is gone (its Lease expired) stays
// Terminating; unauthenticate does the controller's cleanup (bindings) and
// removes the finalizer.
func TestUnauthenticateFinalizesTenantOfDeadController(t *testing.T) {
	provider, consumer := pair(t, "dead-provider", "dead-consumer")
	ctx := labtest.Context(t)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	holdControllerLease(t, ctx, provider, time.Now().Add(-time.Minute), 15)

	ns := kube.TenantNamespaceName("dead-consumer")
	tenants := provider.Liqo.Tenants(ns)
	require.NoError(t, tenants.Delete(ctx, "dead-consumer", metav1.DeleteOptions{}))
	stuck, err := tenants.Get(ctx, "dead-consumer", metav1.GetOptions{})
	require.NoError(t, err, "held by its finalizer")
	require.NotNil(t, stuck.DeletionTimestamp)
	require.Contains(t, providerState(t, ctx, provider, "dead-consumer"), "clusterrolebinding/"+kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, "dead-consumer"))

	_, err = flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	state := providerState(t, ctx, provider, "dead-consumer")
	assert.NotContains(t, state, "tenant")
	for k := range state {
		assert.False(t, strings.HasPrefix(k, "clusterrolebinding/") || strings.HasPrefix(k, "rolebinding/"), "binding left: %s", k)
	}
}

// A controller that dies while unauthenticate waits on it (its Lease
// expires, nobody renews it): the command takes over its cleanup.
func TestUnauthenticateTakesOverWhenControllerDiesMidWait(t *testing.T) {
	provider, consumer := pair(t, "dying-provider", "dying-consumer")
	ctx := labtest.Context(t)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	holdControllerLease(t, ctx, provider, time.Now(), 2)

	notes := &noteSink{}
	_, err = flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, notes.sink)
	require.NoError(t, err)
	assert.True(t, notes.has("served by "+string(flows.EngineController)), "the controller was believed running")
	state := providerState(t, ctx, provider, "dying-consumer")
	assert.NotContains(t, state, "tenant")
	for k := range state {
		assert.False(t, strings.HasPrefix(k, "clusterrolebinding/") || strings.HasPrefix(k, "rolebinding/"), "binding left: %s", k)
	}
}

// holdControllerLease writes the in-cluster controller's Lease as a holder
// that renewed it at renewed and never will again.
func holdControllerLease(t *testing.T, ctx context.Context, c *kube.Cluster, renewed time.Time, seconds int32) {
	_, err := c.Kube.CoordinationV1().Leases(c.Namespace).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: kube.ControllerLeaseName, Namespace: c.Namespace},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("killed-0"), LeaseDurationSeconds: ptr.To(seconds),
			AcquireTime: &metav1.MicroTime{Time: renewed}, RenewTime: &metav1.MicroTime{Time: renewed}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// providerState records the resourceVersions of what the provider holds
// for a consumer: Tenant, bindings, cached certificate.
func providerState(t *testing.T, ctx context.Context, p *kube.Cluster, consumerID string) map[string]string {
	out := map[string]string{}
	ns := kube.TenantNamespaceName(consumerID)
	if tn, err := p.TenantFor(ctx, ns, consumerID); err == nil {
		out["tenant"] = tn.ResourceVersion
	} else {
		require.True(t, kube.IsNotFound(err), "%v", err)
	}
	sel := metav1.ListOptions{LabelSelector: kube.RemoteClusterIDLabel + "=" + consumerID}
	crbs, err := p.Kube.RbacV1().ClusterRoleBindings().List(ctx, sel)
	require.NoError(t, err)
	for _, b := range crbs.Items {
		out["clusterrolebinding/"+b.Name] = b.ResourceVersion
	}
	rbs, err := p.Kube.RbacV1().RoleBindings(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, b := range rbs.Items {
		out["rolebinding/"+b.Name] = b.ResourceVersion
	}
	if s, err := p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{}); err == nil {
		out["secret/"+s.Name] = s.ResourceVersion
	}
	return out
}

// consumerState records the consumer's Identities and kubeconfig Secrets
// for a provider.
func consumerState(t *testing.T, ctx context.Context, c *kube.Cluster, providerID string) map[string]string {
	out := map[string]string{}
	ids, err := c.Liqo.Identities("").List(ctx, metav1.ListOptions{LabelSelector: kube.RemoteClusterIDLabel + "=" + providerID})
	require.NoError(t, err)
	for _, id := range ids.Items {
		out["identity/"+id.Namespace+"/"+id.Name] = id.ResourceVersion
	}
	secrets, err := c.Kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: kube.RemoteClusterIDLabel + "=" + providerID + "," + kube.IdentityTypeLabel})
	require.NoError(t, err)
	for _, s := range secrets.Items {
		out["secret/"+s.Namespace+"/"+s.Name] = s.ResourceVersion
	}
	return out
}

// runLeftovers runs the leftovers' commands, as told, with kubeconfig, and
// checks that each removed something.
func runLeftovers(t *testing.T, kubeconfig string, leftovers []flows.Leftover) {
	_, err := exec.LookPath("kubectl")
	require.NoError(t, err, "the leftovers' commands are kubectl commands: install kubectl (.ci/run does)")
	for _, l := range leftovers {
		cmd := exec.Command("sh", "-c", l.Command)
		cmd.Env = append(cmd.Environ(), "KUBECONFIG="+kubeconfig)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s:\n%s", l.Command, out)
		// Each removes something: what it names was there.
		assert.Regexp(t, `(?m) (deleted|patched)$`, string(out), l.Command)
	}
}

// noteSink keeps the Notes a flow told.
type noteSink struct {
	mu    sync.Mutex
	notes []string
}

func (n *noteSink) sink(ev handshake.Event) {
	if ev.Kind != handshake.Note {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes = append(n.notes, ev.Message)
}

func (n *noteSink) has(part string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range n.notes {
		if strings.Contains(m, part) {
			return true
		}
	}
	return false
}

// A kubeconfig Secret that outlives its deleted Identity (Liqo's Identity
// controller wrote it again while the foreground deletion waited) goes
// with the unauthenticate; another Identity's stays. (The Identity here
// still exists, so that the garbage collector leaves the Secret to the
// code under test.)
func TestUnauthenticateDropsAnOrphanKubeconfig(t *testing.T) {
	_, consumer := authenticatedPair(t, "ok-provider", "ok-consumer")
	ctx := labtest.Context(t)
	id, err := consumer.ControlPlaneIdentityFor(ctx, "ok-provider")
	require.NoError(t, err)
	s, err := consumer.KubeconfigSecretFor(ctx, "ok-provider")
	require.NoError(t, err)
	require.Equal(t, id.UID, metav1.GetControllerOf(s).UID)

	other := id.DeepCopy()
	other.UID = "another-identity"
	require.NoError(t, flows.DropOrphanKubeconfig(ctx, consumer, "ok-provider", other))
	_, err = consumer.KubeconfigSecretFor(ctx, "ok-provider")
	require.NoError(t, err, "not this Identity's: kept")

	require.NoError(t, flows.DropOrphanKubeconfig(ctx, consumer, "ok-provider", id))
	_, err = consumer.Kube.CoreV1().Secrets(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "the Identity's kubeconfig Secret is deleted: %v", err)
}

//go:build cluster

package doctorcert_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// The IDs of the checks under test.
const (
	certificateCheck = "certificate-renewal"
	replicationCheck = "replication"
)

// One test per cause doctor names, each provoked for real. The expiry
// test waits three minutes on a pair of its own while the others take
// turns on theirs.
func TestDoctorCertificateAndReplication(t *testing.T) {
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		certificateExpired(t)
	})
	t.Run("pair", func(t *testing.T) {
		t.Parallel()
		t.Run("healthy", healthy)
		t.Run("no-controller-on-provider", noControllerOnProvider)
		t.Run("renew-not-replicated", renewNotReplicated)
		t.Run("replication-refused", replicationRefused)
		t.Run("replica-finalizer-holds-deletion", replicaFinalizerHoldsDeletion)
		t.Run("liqo-v1.1.2-provider-does-not-renew", liqoProviderDoesNotRenew)
		t.Run("liqo-v1.1.2-consumer-never-applies", liqoConsumerNeverApplies)
	})
}

// A pair with a slice, controllers on both sides: both checks pass, from
// either side, and say what they saw.
func healthy(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	p := ourPair(t, ctx, cs[providerCluster], cs[consumerCluster], "healthy-provider", "healthy-consumer")
	_, err := flows.CreateResourceSlice(ctx, p.consumer, artifact.SliceRequest{Name: "healthy-slice", ProviderID: p.providerID, CPU: "1"},
		flows.SliceOptions{Wait: true, Provider: p.provider}, nil)
	require.NoError(t, err)
	waitRenewCopy(t, ctx, p)

	for _, side := range []struct {
		local, remote *kube.Cluster
		remoteID      string
	}{{p.consumer, p.provider, p.providerID}, {p.provider, p.consumer, p.consumerID}} {
		d := diagnose(t, ctx, side.local, side.remote, side.remoteID)
		cert := checkOf(t, d, certificateCheck)
		assert.True(t, cert.OK)
		assert.Regexp(t, `^valid until \S+, renewal due \S+, last renewal (never|\S+)$`, cert.Detail)
		repl := checkOf(t, d, replicationCheck)
		assert.True(t, repl.OK)
		assert.Contains(t, repl.Detail, "ResourceSlice healthy-slice")
		assert.Contains(t, repl.Detail, "Renew "+p.identity.Name)
	}
}

// The provider's controller stopped: nothing renews the certificate, which
// passes its renewal point. Doctor says so from both sides, and the fix
// is to run the controller there; once it runs, the renewal comes back and
// the check passes.
func noControllerOnProvider(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	p := ourPair(t, ctx, cs[providerCluster], cs[consumerCluster], "nocontroller-provider", "nocontroller-consumer")
	p.stopProvider(t)
	waitUntil(t, ctx, overdue(p.first), "renewal overdue")

	d := diagnose(t, ctx, p.consumer, p.provider, p.providerID)
	c := checkOf(t, d, certificateCheck)
	assert.False(t, c.OK)
	assert.Equal(t, handshake.Local, c.Scope, "the consumer's certificate")
	assert.Contains(t, c.Cause, "renewal was due ")
	assert.Contains(t, c.Cause, "the certificate expires at "+p.first.NotAfter.UTC().Format(time.RFC3339))
	assert.Contains(t, c.Cause, "no controller runs on the provider (liqo-auth-controller's Lease is not held there) to renew it")
	assert.Equal(t, "liqo-auth-tui install controller --kubeconfig <provider's kubeconfig>", c.Fix)
	assert.Nil(t, c.Repair)

	d = diagnose(t, ctx, p.provider, p.consumer, p.consumerID)
	c = checkOf(t, d, certificateCheck)
	assert.False(t, c.OK)
	assert.Equal(t, handshake.Remote, c.Scope, "the consumer's certificate")
	assert.Contains(t, c.Cause, "no controller runs on the provider")
	assert.Equal(t, "liqo-auth-tui install controller", c.Fix, "run here, on the provider")

	// The fix: the controller runs on the provider again.
	p.startProvider(t, ctx)
	waitIdentityRenewed(t, ctx, p.consumer, p.identity, p.first)
	c = checkOf(t, diagnose(t, ctx, p.consumer, p.provider, p.providerID), certificateCheck)
	assert.True(t, c.OK)
	assert.NotContains(t, c.Detail, "last renewal never")
}

// The certificate expired (nothing renewed it): the fix is to
// re-authenticate, which doctor --fix does with both clusters.
func certificateExpired(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	p := ourPair(t, ctx, cs[expiredProviderCluster], cs[expiredConsumerCluster], "expired-provider", "expired-consumer")
	p.stopProvider(t)
	waitUntil(t, ctx, p.first.NotAfter, "expiry")

	fix := "liqo-auth-tui doctor --fix --remote-cluster-id " + p.providerID + " --remote-kubeconfig <provider's kubeconfig>"
	c := checkOf(t, diagnose(t, ctx, p.consumer, p.provider, p.providerID), certificateCheck)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "the certificate expired at "+p.first.NotAfter.UTC().Format(time.RFC3339))
	assert.Contains(t, c.Cause, "no controller runs on the provider")
	assert.Equal(t, fix, c.Fix)
	assert.NotNil(t, c.Repair, "re-authenticate keeping the ResourceSlices")

	// Only the consumer read: the same fix, which needs both clusters.
	c = checkOf(t, diagnose(t, ctx, p.consumer, nil, p.providerID), certificateCheck)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "the certificate expired at ")
	assert.Equal(t, fix, c.Fix)
	assert.Nil(t, c.Repair)
}

// The provider renews, but takes from the consumer the right to copy
// Renews there (its ClusterRole stripped of renews) and the copy is gone:
// the renewed certificate cannot come back. Both checks say which Renew
// and what the provider answered; doctor --fix gives the rights back and
// has the replicator try again, and the renewal comes.
func renewNotReplicated(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	p := ourPair(t, ctx, cs[providerCluster], cs[consumerCluster], "norenew-provider", "norenew-consumer")
	waitRenewCopy(t, ctx, p)
	takeRenewsAway(t, ctx, p.provider)
	provNS := kube.TenantNamespaceName(p.consumerID)
	require.NoError(t, p.provider.Liqo.Renews(provNS).Delete(ctx, p.identity.Name, metav1.DeleteOptions{}))
	liqotest.WaitEvent(t, ctx, p.consumer, authv1beta1.RenewKind, p.identity.Namespace, p.identity.Name, controller.ReasonReplicationForbidden)
	waitTenantRenewed(t, ctx, p)
	waitUntil(t, ctx, overdue(p.first), "renewal overdue")

	fix := "liqo-auth-tui doctor --fix --remote-cluster-id " + p.providerID + " --remote-kubeconfig <provider's kubeconfig>"
	renew := p.identity.Namespace + "/" + p.identity.Name
	d := diagnose(t, ctx, p.consumer, p.provider, p.providerID)
	c := checkOf(t, d, certificateCheck)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "the provider renewed it (valid until ")
	assert.Contains(t, c.Cause, "Renew "+renew+" is not replicated to the provider: Provider "+p.providerID+" refuses the copy of Renew "+p.identity.Name)
	assert.Contains(t, c.Cause, "forbidden")
	assert.Equal(t, fix, c.Fix)
	r := checkOf(t, d, replicationCheck)
	assert.False(t, r.OK)
	assert.Contains(t, r.Cause, "the provider refuses the copy of Renew "+renew+": ")
	assert.Equal(t, fix, r.Fix)
	require.NotNil(t, r.Repair)
	assert.Contains(t, r.Repair.Plan, "provider: re-apply what `liqo-auth-tui init` installs (its ClusterRoles among them; what is unchanged stays)")

	require.NoError(t, doctor.ApplyRepair(ctx, r))
	waitIdentityRenewed(t, ctx, p.consumer, p.identity, p.first)
	d = diagnose(t, ctx, p.consumer, p.provider, p.providerID)
	assert.True(t, checkOf(t, d, certificateCheck).OK)
	assert.True(t, checkOf(t, d, replicationCheck).OK)
}

// The provider's controller is down and the consumer's RoleBinding there
// is gone (nothing makes it again): the consumer's replicator is refused
// the copy of a new ResourceSlice. Doctor names the slice and the
// provider's answer; doctor --fix binds the consumer again and the copy
// is made.
func replicationRefused(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	p := ourPair(t, ctx, cs[providerCluster], cs[consumerCluster], "refused-provider", "refused-consumer")
	waitRenewCopy(t, ctx, p)
	p.stopProvider(t) // its Tenant reconciler would bind the consumer again at once
	provNS, consNS := kube.TenantNamespaceName(p.consumerID), kube.TenantNamespaceName(p.providerID)
	binding := kube.RoleBindingName(kube.RemoteControlPlaneClusterRole)
	require.NoError(t, p.provider.Kube.RbacV1().RoleBindings(provNS).Delete(ctx, binding, metav1.DeleteOptions{}))
	const slice = "refused-slice"
	_, err := p.consumer.Liqo.ResourceSlices(consNS).Create(ctx, kube.ForgeResourceSlice(slice, consNS, p.providerID, authv1beta1.ResourceSliceClassDefault,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}, false), metav1.CreateOptions{})
	require.NoError(t, err)
	liqotest.WaitEvent(t, ctx, p.consumer, authv1beta1.ResourceSliceKind, consNS, slice, controller.ReasonReplicationForbidden)

	r := checkOf(t, diagnose(t, ctx, p.consumer, p.provider, p.providerID), replicationCheck)
	assert.False(t, r.OK)
	assert.Equal(t, handshake.Local, r.Scope)
	assert.Contains(t, r.Cause, "the provider refuses the copy of ResourceSlice "+consNS+"/"+slice+": Provider "+p.providerID+" refuses the copy of ResourceSlice "+slice)
	assert.Contains(t, r.Cause, "forbidden")
	assert.Equal(t, "liqo-auth-tui doctor --fix --remote-cluster-id "+p.providerID+" --remote-kubeconfig <provider's kubeconfig>", r.Fix)
	require.NotNil(t, r.Repair)
	assert.Contains(t, r.Repair.Plan, "consumer: annotate ResourceSlice "+consNS+"/"+slice+" with liqo-auth-tui.io/replicate-again so that its replicator tries again now")

	require.NoError(t, doctor.ApplyRepair(ctx, r))
	_, err = p.provider.Kube.RbacV1().RoleBindings(provNS).Get(ctx, binding, metav1.GetOptions{})
	require.NoError(t, err, "the consumer is bound again")
	slices := p.provider.Liqo.ResourceSlices(provNS)
	_, err = kube.WaitFor(ctx, kube.ListWatch(slices.List, slices.Watch, kube.ByName(slice)), "the slice's copy on the provider",
		func(*authv1beta1.ResourceSlice) (bool, error) { return true, nil })
	require.NoError(t, err)
	r = checkOf(t, diagnose(t, ctx, p.consumer, p.provider, p.providerID), replicationCheck)
	assert.True(t, r.OK)
	assert.Contains(t, r.Detail, "ResourceSlice "+slice)
}

// The consumer's controller stopped after a slice was copied: the slice,
// deleted, stays Terminating on the replicator's finalizer, which goes
// only once the copy on the provider is deleted. Doctor names the slice,
// the finalizer and what it waits for, and that the consumer's controller
// must run; once it runs, the copy and the slice go and the check passes.
func replicaFinalizerHoldsDeletion(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	p := ourPair(t, ctx, cs[providerCluster], cs[consumerCluster], "held-provider", "held-consumer")
	const slice = "held-slice"
	_, err := flows.CreateResourceSlice(ctx, p.consumer, artifact.SliceRequest{Name: slice, ProviderID: p.providerID, CPU: "1"},
		flows.SliceOptions{Wait: true, Provider: p.provider}, nil)
	require.NoError(t, err)
	p.stopConsumer(t)
	consNS := kube.TenantNamespaceName(p.providerID)
	slices := p.consumer.Liqo.ResourceSlices(consNS)
	require.NoError(t, slices.Delete(ctx, slice, metav1.DeleteOptions{}))
	held, err := slices.Get(ctx, slice, metav1.GetOptions{})
	require.NoError(t, err, "held by the replicator's finalizer")
	waitUntil(t, ctx, held.DeletionTimestamp.Add(time.Minute), "the deletion held a minute")

	r := checkOf(t, diagnose(t, ctx, p.consumer, p.provider, p.providerID), replicationCheck)
	assert.False(t, r.OK)
	assert.Equal(t, handshake.Local, r.Scope)
	assert.Contains(t, r.Cause, "ResourceSlice "+consNS+"/"+slice+" has been Terminating since "+held.DeletionTimestamp.UTC().Format(time.RFC3339)+", held by finalizer ")
	assert.Contains(t, r.Cause, kube.ReplicaFinalizer)
	assert.Contains(t, r.Cause, ", waiting for its copy on the provider, still there")
	assert.Equal(t, "liqo-auth-tui install controller", r.Fix)

	// The fix: the consumer's controller runs again.
	p.startConsumer(t, ctx)
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(slices.List, slices.Watch, kube.ByName(slice)), &authv1beta1.ResourceSlice{}, "slice "+slice))
	r = checkOf(t, diagnose(t, ctx, p.consumer, p.provider, p.providerID), replicationCheck)
	assert.True(t, r.OK)
	assert.NotContains(t, r.Detail, slice)
}

//go:build cluster

package doctorcert_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// A real Liqo v1.1.2 provider renews nobody until its administrator
// deletes its certificate cache (liqotech/liqo#3173): this project's
// consumer asks, gets the same certificate back and warns. Doctor names
// the Secret and the command that deletes it, with both clusters read
// (the provider's release from its chart's label) or only the consumer
// (its controller's Warning); once it is deleted, the next ask brings a
// new certificate and the check passes.
func liqoProviderDoesNotRenew(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	const release, liqoID, ourID = "v1.1.2", "liqo-v1-1-2-provider", "ours-v1-1-2-consumer"
	provider := liqotest.LiqoReleaseCluster(t, ctx, cs[liqoCluster], release, liqoID, true, false)
	consumer := liqotest.OurCluster(t, ctx, cs[consumerCluster], ourID)
	startController(t, ctx, consumer, controller.Options{Consumer: true})
	forgetPeer(t, consumer, liqoID)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, nil)
	require.NoError(t, err)
	first := identityCertificate(t, res.Identity)
	liqotest.WaitEvent(t, ctx, consumer, authv1beta1.IdentityKind, res.Identity.Namespace, res.Identity.Name, controller.ReasonCertificateNotRenewed)

	provNS := kube.TenantNamespaceName(ourID)
	cache := provNS + "/" + kube.RemoteCertSecretName
	fix := "kubectl delete secret " + kube.RemoteCertSecretName + " -n " + provNS + " --kubeconfig <provider's kubeconfig>"
	c := checkOf(t, diagnose(t, ctx, consumer, provider, liqoID), certificateCheck)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "a Liqo v1.1.2 provider renews only after its administrator deletes the certificate cache Secret "+cache+" (liqotech/liqo#3173)")
	assert.Equal(t, fix, c.Fix)
	c = checkOf(t, diagnose(t, ctx, consumer, nil, liqoID), certificateCheck)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "the provider answers this consumer's asks with the same certificate: a Liqo v1.0–v1.1 provider renews only after its administrator deletes the certificate cache Secret "+cache)
	assert.Equal(t, fix, c.Fix)

	// The fix, as printed.
	require.NoError(t, provider.Kube.CoreV1().Secrets(provNS).Delete(ctx, kube.RemoteCertSecretName, metav1.DeleteOptions{}))
	waitIdentityRenewed(t, ctx, consumer, res.Identity, first)
	c = checkOf(t, diagnose(t, ctx, consumer, provider, liqoID), certificateCheck)
	assert.True(t, c.OK)
}

// This project's provider renews the certificate of a real Liqo v1.1.2
// consumer, which never applies a renewed control-plane certificate (it
// reads no Renew's answer): doctor says so, and that the fix is to
// re-authenticate, which doctor --fix does.
func liqoConsumerNeverApplies(t *testing.T) {
	cs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	const release, liqoID, ourID = "v1.1.2", "liqo-v1-1-2-consumer", "ours-v1-1-2-provider"
	consumer := liqotest.LiqoReleaseCluster(t, ctx, cs[liqoCluster], release, liqoID, false, true)
	p := &pair{providerID: ourID, consumerID: liqoID, consumer: consumer, providerLab: cs[providerCluster],
		provider: liqotest.OurCluster(t, ctx, cs[providerCluster], ourID)}
	p.startProvider(t, ctx)
	forgetPeer(t, p.provider, liqoID)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: p.provider}, nil)
	require.NoError(t, err)
	realliqov1.StartReplicator(t, cs[liqoCluster].KubeconfigPath, realliqov1.ReplicatorOptions{Release: release, ClusterID: liqoID})
	p.first = identityCertificate(t, res.Identity)
	waitTenantRenewed(t, ctx, p)
	waitUntil(t, ctx, overdue(p.first), "renewal overdue")

	c := checkOf(t, diagnose(t, ctx, p.provider, consumer, liqoID), certificateCheck)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "the provider renewed it (valid until ")
	assert.Contains(t, c.Cause, "a Liqo v1.1.2 consumer never applies a renewed control-plane certificate: re-authenticate")
	assert.Equal(t, "liqo-auth-tui doctor --fix --remote-cluster-id "+liqoID+" --remote-kubeconfig <consumer's kubeconfig>", c.Fix)
	assert.NotNil(t, c.Repair, "re-authenticate keeping the ResourceSlices")
}

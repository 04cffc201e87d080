//go:build cluster

package doctorpeering_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// A pair authenticated by this project's flow passes every check of the
// handshake and the credentials, whichever side doctor runs on.
func TestDoctorHealthyPair(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-healthy")

	all := []string{handshakeComplete, tenantIdentity, identityKubeconfig, consumerKey, reachable, accepted, permissions}
	passes(t, p.fromConsumer(t, ctx, true), all...)
	passes(t, p.fromProvider(t, ctx, true), all...)

	alone := p.fromConsumer(t, ctx, false)
	passes(t, alone, handshakeComplete, identityKubeconfig, consumerKey, reachable, accepted, permissions)
	absent(t, alone, tenantIdentity) // the provider's Tenant is not read

	provider := p.fromProvider(t, ctx, false)
	passes(t, provider, handshakeComplete, permissions)
	assert.Contains(t, check(t, provider, handshakeComplete).Detail, "--remote-kubeconfig", "the provider alone cannot see the Identity, and says so")
	assert.Contains(t, check(t, provider, permissions).Detail, "bindings of consumer dp-healthy-cons are in place")
}

// The Identity's kubeconfig Secret deleted, and no controller on the
// consumer to write it again: doctor says so and the next command, and
// its Repair (the handshake resumed) writes it again.
func TestDoctorIdentityWithoutKubeconfig(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-nokcfg")
	s, err := p.consumer.KubeconfigSecretFor(ctx, p.providerID)
	require.NoError(t, err)
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{}))

	d := p.fromConsumer(t, ctx, true)
	c := failedCheck(t, d, identityKubeconfig, handshake.Local)
	ns := kube.TenantNamespaceName(p.providerID)
	assert.Equal(t, "Identity "+ns+"/"+kube.ControlPlaneIdentityName(p.providerID)+
		" has no kubeconfig Secret: no controller runs on the consumer (nor Liqo)", c.Cause)
	assert.Equal(t, "liqo-auth-tui generate identity --remote-cluster-id dp-nokcfg-cons --output-file identity.yaml --kubeconfig <provider's kubeconfig>"+
		" && liqo-auth-tui apply identity -f identity.yaml", c.Fix)
	// Without the kubeconfig nothing reaches the provider from the
	// consumer's side; the provider's bindings are still checked.
	absent(t, d, accepted)
	passes(t, d, handshakeComplete, permissions)

	// Alone, the consumer gets the same line, and no Repair.
	alone := failedCheck(t, p.fromConsumer(t, ctx, false), identityKubeconfig, handshake.Local)
	assert.Equal(t, c.Cause, alone.Cause)
	assert.Nil(t, alone.Repair, "without the provider there is nothing to resume with")

	repair(t, ctx, c)
	passes(t, p.fromConsumer(t, ctx, true), identityKubeconfig, accepted, permissions)
}

// The provider accepted the consumer's Tenant (the manual flow), the
// consumer never applied the Identity: from the provider with the
// consumer read, a Tenant without Identity; from the consumer alone, a
// handshake stuck at "nonce signed". The Repair finishes it.
func TestDoctorTenantWithoutIdentity(t *testing.T) {
	ctx := testContext(t)
	p := newPair(t, ctx, "dp-noid")
	nonce, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: p.provider, ConsumerID: p.consumerID}, nil)
	require.NoError(t, err)
	tenant, err := flows.GenerateTenant(ctx, flows.ConsumerOptions{Consumer: p.consumer, ProviderID: p.providerID, Nonce: nonce}, nil)
	require.NoError(t, err)
	_, err = flows.ApplyTenant(ctx, flows.ProviderOptions{Provider: p.provider, ConsumerID: p.consumerID}, tenant, nil)
	require.NoError(t, err)

	d := p.fromProvider(t, ctx, true)
	c := failedCheck(t, d, tenantIdentity, handshake.Remote)
	assert.Equal(t, "the provider accepted the Tenant of dp-noid-cons, but the consumer has no Identity for provider dp-noid-prov: "+
		"the consumer's admin applies the one the provider generates", c.Cause)
	assert.Equal(t, "liqo-auth-tui generate identity --remote-cluster-id dp-noid-cons --output-file identity.yaml"+
		" && liqo-auth-tui apply identity -f identity.yaml --kubeconfig <consumer's kubeconfig>", c.Fix)
	passes(t, d, handshakeComplete) // the provider's part is done

	stuck := failedCheck(t, p.fromConsumer(t, ctx, false), handshakeComplete, handshake.Local)
	assert.Equal(t, "nonce signed, no Identity from provider dp-noid-prov: its admin applies the Tenant and sends the Identity", stuck.Cause)
	assert.Equal(t, "liqo-auth-tui generate identity --remote-cluster-id dp-noid-cons --output-file identity.yaml --kubeconfig <provider's kubeconfig>"+
		" && liqo-auth-tui apply identity -f identity.yaml", stuck.Fix)
	assert.Nil(t, stuck.Repair)

	repair(t, ctx, c)
	passes(t, p.fromProvider(t, ctx, true), handshakeComplete, tenantIdentity, identityKubeconfig, accepted, permissions)
}

// A nonce created and nothing after it: the handshake is stuck waiting
// for the consumer's Tenant; the fix is the next commands, and the Repair
// finishes the handshake the way authenticate resumes it.
func TestDoctorHandshakeStuckAtNonce(t *testing.T) {
	ctx := testContext(t)
	p := newPair(t, ctx, "dp-stuck")
	_, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: p.provider, ConsumerID: p.consumerID}, nil)
	require.NoError(t, err)

	d := p.fromProvider(t, ctx, true)
	c := failedCheck(t, d, handshakeComplete, handshake.Local)
	assert.Equal(t, "nonce created, no Tenant from consumer dp-stuck-cons: its admin signs the nonce and sends the Tenant", c.Cause)
	assert.Equal(t, "liqo-auth-tui get nonce --remote-cluster-id dp-stuck-cons > nonce.txt"+
		" && liqo-auth-tui generate tenant --remote-cluster-id dp-stuck-prov --nonce-file nonce.txt --output-file tenant.yaml --kubeconfig <consumer's kubeconfig>"+
		" && liqo-auth-tui apply tenant -f tenant.yaml", c.Fix)

	alone := failedCheck(t, p.fromProvider(t, ctx, false), handshakeComplete, handshake.Local)
	assert.Equal(t, c.Cause, alone.Cause)
	assert.Nil(t, alone.Repair)

	repair(t, ctx, c)
	passes(t, p.fromProvider(t, ctx, true), handshakeComplete, tenantIdentity, identityKubeconfig, accepted, permissions)
}

// The consumer's cluster keys replaced (a reinstall that kept the ID):
// its key no longer matches the Tenant's, nor its kubeconfig's
// certificate. The fix printed (unauthenticate, the provider's cache and
// the consumer's signed nonce of the old key deleted, authenticate) makes
// the check pass.
func TestDoctorConsumerKeyChanged(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-key")
	labtest.RotateKeys(t, ctx, p.consumer)

	c := failedCheck(t, p.fromConsumer(t, ctx, true), consumerKey, handshake.Local)
	assert.Contains(t, c.Cause, "consumer dp-key-cons's cluster key changed (now ")
	assert.Contains(t, c.Cause, "since its Tenant on the provider was signed with")
	assert.Equal(t, "liqo-auth-tui unauthenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"+
		" && kubectl delete secret liqo-remote-certificate -n liqo-tenant-dp-key-cons --kubeconfig <provider's kubeconfig>"+
		" && kubectl delete secret liqo-signed-nonce -n liqo-tenant-dp-key-prov"+
		" && liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>", c.Fix)

	alone := failedCheck(t, p.fromConsumer(t, ctx, false), consumerKey, handshake.Local)
	assert.Contains(t, alone.Cause, "since its kubeconfig's certificate is for")
	assert.Equal(t, c.Fix, alone.Fix)

	// The fix, as printed.
	_, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: p.consumer, Provider: p.provider}, nil)
	require.NoError(t, err)
	require.NoError(t, p.provider.Kube.CoreV1().Secrets(kube.TenantNamespaceName(p.consumerID)).Delete(ctx, kube.RemoteCertSecretName, metav1.DeleteOptions{}))
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(kube.TenantNamespaceName(p.providerID)).Delete(ctx, kube.SignedNonceSecretName, metav1.DeleteOptions{}))
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer, Provider: p.provider}, nil)
	require.NoError(t, err)
	passes(t, p.fromConsumer(t, ctx, true), consumerKey, accepted, permissions)
}

// A Tenant applied where no controller runs: it waits to be accepted,
// doctor says nothing serves the provider, and its Repair finishes the
// handshake with in-process controllers.
func TestDoctorTenantNotAccepted(t *testing.T) {
	ctx := testContext(t)
	p := newPair(t, ctx, "dp-pending")
	nonce, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: p.provider, ConsumerID: p.consumerID}, nil)
	require.NoError(t, err)
	tenant, err := flows.GenerateTenant(ctx, flows.ConsumerOptions{Consumer: p.consumer, ProviderID: p.providerID, Nonce: nonce}, nil)
	require.NoError(t, err)
	tenant.Namespace = kube.TenantNamespaceName(p.consumerID)
	_, _, err = p.provider.ApplyTenant(ctx, tenant) // the object alone: nothing serves it
	require.NoError(t, err)

	c := failedCheck(t, p.fromProvider(t, ctx, true), handshakeComplete, handshake.Local)
	assert.Equal(t, "the Tenant of consumer dp-pending-cons waits for the provider's controller to accept it: no controller runs on the provider (nor Liqo)", c.Cause)
	assert.Equal(t, "liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>", c.Fix)

	repair(t, ctx, c)
	passes(t, p.fromProvider(t, ctx, true), handshakeComplete, tenantIdentity, identityKubeconfig, accepted, permissions)
}

// The consumer's controller runs but cannot write the kubeconfig Secret
// (the cluster's keys are gone): doctor names the controller and its
// Warning; once the keys are back, the controller writes it and the check
// passes.
func TestDoctorIdentityControllerFailed(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-ctrlfail")
	keys, err := p.consumer.Kube.CoreV1().Secrets(p.consumer.Namespace).Get(ctx, kube.AuthKeysSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(p.consumer.Namespace).Delete(ctx, keys.Name, metav1.DeleteOptions{}))
	s, err := p.consumer.KubeconfigSecretFor(ctx, p.providerID)
	require.NoError(t, err)
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{}))
	runController(t, ctx, p.consumer)
	id, err := p.consumer.ControlPlaneIdentityFor(ctx, p.providerID)
	require.NoError(t, err)
	events := p.consumer.Kube.CoreV1().Events(id.Namespace)
	_, err = kube.WaitFor(ctx, kube.ListWatch(events.List, events.Watch, kube.BySelector("")), "the controller's Warning",
		func(e *corev1.Event) (bool, error) {
			return e.InvolvedObject.Name == id.Name && e.Reason == controller.ReasonKubeconfigFailed, nil
		})
	require.NoError(t, err)

	c := failedCheck(t, p.fromConsumer(t, ctx, false), identityKubeconfig, handshake.Local)
	assert.Contains(t, c.Cause, "Identity "+id.Namespace+"/"+id.Name+" has no kubeconfig Secret: the consumer's liqo-auth-controller")
	assert.Contains(t, c.Cause, "failed: KubeconfigFailed: Unable to build the kubeconfig: no cluster key pair found")

	keys.ResourceVersion = ""
	_, err = p.consumer.Kube.CoreV1().Secrets(keys.Namespace).Create(ctx, keys, metav1.CreateOptions{})
	require.NoError(t, err)
	liqotest.WaitIdentityKubeconfig(t, ctx, p.consumer, id.Namespace, id.Name)
	passes(t, p.fromConsumer(t, ctx, false), identityKubeconfig, accepted)
}

// runController runs the consumer side of this project's controller on c
// as the in-cluster one does, holding its Lease (what doctor looks for),
// until the test ends.
func runController(t *testing.T, ctx context.Context, c *kube.Cluster) {
	t.Helper()
	m, err := controller.New(c, controller.Options{Consumer: true})
	require.NoError(t, err)
	started, err := controller.StartWithLease(ctx, c, kube.ControllerLeaseName, "doctorpeering-test", m, time.Minute)
	require.NoError(t, err)
	t.Cleanup(started.Stop)
}

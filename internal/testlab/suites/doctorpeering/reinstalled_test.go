//go:build cluster

package doctorpeering_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// A consumer re-installed with new keys under its cluster ID re-applies
// its Tenant: doctor on the provider alone names the case (the status
// certificate is for the old key), when the provider signs the new CSR by
// itself, and the fix; its Repair deletes the certificate cache, and the
// provider's controller then signs the new CSR.
func TestDoctorReinstalledConsumersTenant(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-reinst")
	labtest.RotateKeys(t, ctx, p.consumer)
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(kube.TenantNamespaceName(p.providerID)).Delete(ctx, kube.SignedNonceSecretName, metav1.DeleteOptions{}))
	nonce, err := flows.CreateNonce(ctx, flows.ProviderOptions{Provider: p.provider, ConsumerID: p.consumerID}, nil)
	require.NoError(t, err)
	tenant, err := flows.GenerateTenant(ctx, flows.ConsumerOptions{Consumer: p.consumer, ProviderID: p.providerID, Nonce: nonce}, nil)
	require.NoError(t, err)
	tenant.Namespace = kube.TenantNamespaceName(p.consumerID)
	_, _, err = p.provider.ApplyTenant(ctx, tenant) // the object alone: nothing serves it yet
	require.NoError(t, err)

	// authenticate does not take the old key's certificate for the new one:
	// the provider's refusal ends it at once, with what to do.
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer, Provider: p.provider}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the stored and the provided CSR do not match")
	assert.Contains(t, flows.Explain(err).Hint, "re-installed with new keys under its cluster ID")

	c := failedCheck(t, p.fromProvider(t, ctx, false), "tenant-certificate-key", handshake.Local)
	assert.Contains(t, c.Cause, "consumer dp-reinst-cons was re-installed with new keys under its cluster ID")
	assert.Contains(t, c.Cause, "a liqo-auth-tui or Liqo v1.2+ provider signs the new CSR when the old certificate is due (at its renewal, ")
	assert.True(t, strings.HasPrefix(c.Fix, "kubectl delete secret liqo-remote-certificate -n liqo-tenant-dp-reinst-cons && "), c.Fix)

	repair(t, ctx, c)
	m, err := controller.New(p.provider, controller.Options{Provider: true})
	require.NoError(t, err)
	started, err := controller.StartWithLease(ctx, p.provider, kube.ControllerLeaseName, "doctorpeering-test", m, time.Minute)
	require.NoError(t, err)
	t.Cleanup(started.Stop)
	newKey, _, err := p.consumer.PublicKey(ctx)
	require.NoError(t, err)
	tenants := p.provider.Liqo.Tenants(tenant.Namespace)
	_, err = kube.WaitFor(ctx, kube.ListWatch(tenants.List, tenants.Watch, kube.ByName(tenant.Name)), "the Tenant's certificate for the new key",
		func(got *authv1beta1.Tenant) (bool, error) {
			if got.Status.AuthParams == nil {
				return false, nil
			}
			cert, err := authcrypto.ParseCertificatePEM(got.Status.AuthParams.SignedCRT)
			return err == nil && authcrypto.SamePublicKey(cert.PublicKey, newKey), nil
		})
	require.NoError(t, err)
	passes(t, p.fromProvider(t, ctx, false), "tenant-certificate-key")
}

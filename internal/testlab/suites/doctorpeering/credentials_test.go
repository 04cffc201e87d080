//go:build cluster

package doctorpeering_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The provider's RoleBinding for the consumer deleted (no controller to
// make it again): the kubeconfig is refused what it granted (403), doctor
// names the binding, and its Repair re-creates it.
func TestDoctorMissingBinding(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-rbac")
	ns := kube.TenantNamespaceName(p.consumerID)
	binding := kube.RoleBindingName(kube.RemoteControlPlaneClusterRole)
	require.NoError(t, p.provider.Kube.RbacV1().RoleBindings(ns).Delete(ctx, binding, metav1.DeleteOptions{}))

	c := failedCheck(t, p.fromConsumer(t, ctx, true), permissions, handshake.Remote)
	assert.Equal(t, "the provider refuses get resourceslices.authentication.liqo.io -n "+ns+" (and 20 more) to consumer dp-rbac-cons (403): "+
		"missing on the provider: RoleBinding "+ns+"/"+binding, c.Cause)
	assert.Equal(t, "liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>", c.Fix)
	require.NotNil(t, c.Repair)
	assert.Equal(t, []string{"create RoleBinding " + ns + "/" + binding + " on the provider dp-rbac-prov (for consumer dp-rbac-cons)"}, c.Repair.Plan)

	alone := failedCheck(t, p.fromConsumer(t, ctx, false), permissions, handshake.Remote)
	assert.Equal(t, "the provider refuses get resourceslices.authentication.liqo.io -n "+ns+" (and 20 more) to consumer dp-rbac-cons (403): "+
		"the RoleBinding "+binding+" in "+ns+" on the provider should grant it", alone.Cause)
	assert.Nil(t, alone.Repair)

	provider := failedCheck(t, p.fromProvider(t, ctx, false), permissions, handshake.Local)
	assert.Equal(t, "missing on the provider: RoleBinding "+ns+"/"+binding+": consumer dp-rbac-cons's kubeconfig is refused what they grant (403)", provider.Cause)

	repair(t, ctx, provider) // from the provider alone: it holds what is missing
	passes(t, p.fromConsumer(t, ctx, true), permissions, accepted, reachable)
	passes(t, p.fromProvider(t, ctx, false), permissions)
}

// The kubeconfig Secret pointed at an address where nothing listens:
// doctor names the address; authenticate with --api-server-override (the
// fix) writes the provider's real one again.
func TestDoctorAdvertisedUnreachable(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-reach")
	_, dead := labtest.UnreachableKubeconfig(t)
	s, err := p.consumer.KubeconfigSecretFor(ctx, p.providerID)
	require.NoError(t, err)
	cfg, err := clientcmd.Load(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	for _, cl := range cfg.Clusters {
		cl.Server = "https://" + dead
	}
	s.Data[kube.KubeconfigField], err = clientcmd.Write(*cfg)
	require.NoError(t, err)
	_, err = p.consumer.Kube.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{})
	require.NoError(t, err)

	d := p.fromConsumer(t, ctx, true)
	c := failedCheck(t, d, reachable, handshake.Local)
	assert.Equal(t, "the API server https://"+dead+" that provider dp-reach-prov advertised does not answer from here: connect: connection refused", c.Cause)
	assert.Equal(t, "liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"+
		" --api-server-override https://<address the consumer reaches>", c.Fix)
	absent(t, d, accepted) // nothing answered to accept or refuse it

	// The fix, with the provider's address.
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer, Provider: p.provider,
		Engine: flows.EngineOptions{APIServerOverride: p.provider.Server}}, nil)
	require.NoError(t, err)
	passes(t, p.fromConsumer(t, ctx, true), reachable, accepted, permissions)
}

// The consumer's certificate replaced by one for its key from another CA
// (as after the provider's CA was rotated): refused (401), doctor says
// which CA, and the re-authenticate Repair gets a certificate from the
// provider's CA while the consumer's ResourceSlice stays as it was.
func TestDoctorCertificateOfAnotherCA(t *testing.T) {
	ctx := testContext(t)
	p := authenticatedPair(t, ctx, "dp-ca")
	slice := createSlice(t, ctx, p)
	foreignCertificate(t, ctx, p)

	c := failedCheck(t, p.fromConsumer(t, ctx, true), accepted, handshake.Local)
	assert.Equal(t, `the provider refuses the kubeconfig's certificate (401): the certificate was signed by "another-ca", `+
		"not by the CA the provider trusts now: wrong CA, or the provider's CA was rotated", c.Cause)
	assert.Equal(t, "liqo-auth-tui unauthenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"+
		" && kubectl delete secret liqo-remote-certificate -n liqo-tenant-dp-ca-cons --kubeconfig <provider's kubeconfig>"+
		" && liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>", c.Fix)
	passes(t, p.fromConsumer(t, ctx, true), reachable)

	alone := failedCheck(t, p.fromConsumer(t, ctx, false), accepted, handshake.Local)
	assert.Contains(t, alone.Cause, "yet refused: signed by a CA the provider no longer trusts (rotated?) or revoked; --remote-kubeconfig tells which")
	assert.Nil(t, alone.Repair, "re-authenticating needs both clusters")

	repair(t, ctx, c)
	passes(t, p.fromConsumer(t, ctx, true), accepted, permissions, handshakeComplete, identityKubeconfig)
	kept, err := p.consumer.Liqo.ResourceSlices(slice.Namespace).Get(ctx, slice.Name, metav1.GetOptions{})
	require.NoError(t, err, "the Repair keeps the consumer's ResourceSlices")
	assert.Equal(t, slice.UID, kept.UID)
}

// foreignCertificate gives the consumer's Identity, and its kubeconfig
// Secret, a certificate for its own key signed by a CA of its own.
func foreignCertificate(t *testing.T, ctx context.Context, p pair) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	key, keyPEM, err := p.consumer.PrivateKey(ctx)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: p.consumerID, Organization: []string{"liqo.io"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	require.NoError(t, err)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})

	id, err := p.consumer.ControlPlaneIdentityFor(ctx, p.providerID)
	require.NoError(t, err)
	id.Spec.AuthParams.SignedCRT = certPEM
	id, err = p.consumer.Liqo.Identities(id.Namespace).Update(ctx, id, metav1.UpdateOptions{})
	require.NoError(t, err)
	s, err := p.consumer.KubeconfigSecretFor(ctx, p.providerID)
	require.NoError(t, err)
	s.Data[kube.KubeconfigField], err = kube.Kubeconfig(id, keyPEM)
	require.NoError(t, err)
	_, err = p.consumer.Kube.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// createSlice makes a ResourceSlice on the consumer for the provider (no
// controller answers it: it only has to survive the Repair).
func createSlice(t *testing.T, ctx context.Context, p pair) *authv1beta1.ResourceSlice {
	t.Helper()
	rs := kube.ForgeResourceSlice("dp-slice", kube.TenantNamespaceName(p.providerID), p.providerID, authv1beta1.ResourceSliceClassDefault,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}, false)
	created, err := p.consumer.Liqo.ResourceSlices(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { // before the pair's removal, which refuses a pair with slices
		err := p.consumer.Liqo.ResourceSlices(rs.Namespace).Delete(context.Background(), rs.Name, metav1.DeleteOptions{})
		if err != nil && !kube.IsNotFound(err) {
			t.Logf("cleanup: deleting ResourceSlice %s/%s: %v", rs.Namespace, rs.Name, err)
		}
	})
	return created
}

// The proxy the consumer's kubeconfig goes through is down: doctor names
// it and says to give another one; authenticate with --proxy-url (the fix)
// puts the new proxy in the Tenant, hence in the kubeconfig, and the check
// passes through it.
func TestDoctorProxyUnreachable(t *testing.T) {
	ctx := testContext(t)
	p := newPair(t, ctx, "dp-proxy")
	first, err := lab.StartConnectProxy(ctx, nil)
	require.NoError(t, err)
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer, Provider: p.provider, ProxyURL: first.URL()}, nil)
	require.NoError(t, err)
	assert.Equal(t, p.provider.Server+" through the proxy "+first.URL(), check(t, p.fromConsumer(t, ctx, true), reachable).Detail)
	first.Stop()

	c := failedCheck(t, p.fromConsumer(t, ctx, true), reachable, handshake.Local)
	assert.Contains(t, c.Cause, "the API server "+p.provider.Server+" that provider dp-proxy-prov advertised does not answer from here through the proxy "+first.URL()+": ")
	assert.Equal(t, "liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"+
		" --proxy-url http://<proxy the consumer reaches>", c.Fix)

	// The fix, with a proxy that runs.
	second, err := lab.StartConnectProxy(ctx, nil)
	require.NoError(t, err)
	t.Cleanup(second.Stop)
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer, Provider: p.provider, ProxyURL: second.URL()}, nil)
	require.NoError(t, err)
	d := p.fromConsumer(t, ctx, true)
	passes(t, d, reachable, accepted, permissions)
	assert.Equal(t, p.provider.Server+" through the proxy "+second.URL(), check(t, d, reachable).Detail)
}

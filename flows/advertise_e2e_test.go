//go:build cluster

package flows_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func advertisedCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(5), Subject: pkix.Name{CommonName: "advertised-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// The run's overrides go on the Tenant, so whichever controller serves the
// provider (and its renewals) honours them; a later run without overrides
// keeps them.
func TestAuthenticateOverridesGoOnTheTenant(t *testing.T) {
	provider, consumer := pair(t, "ovr-provider", "ovr-consumer")
	ctx := labtest.Context(t)
	ca := advertisedCA(t)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider,
		Engine: flows.EngineOptions{APIServerOverride: "api.example:6443", CAOverride: ca}}, handshake.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example:6443", res.Tenant.Annotations[kube.AdvertiseAPIServerAnnotation])
	assert.Equal(t, "https://api.example:6443", res.Identity.Spec.AuthParams.APIServer)
	assert.Equal(t, ca, res.Identity.Spec.AuthParams.CA)

	res, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, handshake.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example:6443", res.Identity.Spec.AuthParams.APIServer, "the edit stays for this consumer")

	res, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider,
		Engine: flows.EngineOptions{APIServerOverride: "https://other.example"}}, handshake.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://other.example", res.Identity.Spec.AuthParams.APIServer)
}

// The wizard's edit end to end: set on the accepted Tenant, honoured by the
// provider's controller in its status (which renewals copy again), so the
// Identity and the consumer's kubeconfig carry the edited address, and no
// CA when the edit says publicly trusted.
func TestReadvertiseReachesTheConsumerKubeconfig(t *testing.T) {
	provider, consumer := pair(t, "readv-provider", "readv-consumer")
	ctx := labtest.Context(t)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, handshake.Discard)
	require.NoError(t, err)
	require.Equal(t, strings.TrimSuffix(provider.Server, "/"), res.Identity.Spec.AuthParams.APIServer)

	edit := flows.EngineOptions{APIServerOverride: "edited.example:6443", TrustedCA: true}
	tenant, err := flows.Readvertise(ctx, flows.ProviderOptions{Provider: provider, ConsumerID: res.ConsumerID, Engine: edit}, handshake.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://edited.example:6443", tenant.Status.AuthParams.APIServer)
	assert.Empty(t, tenant.Status.AuthParams.CA)
	assert.Equal(t, "https://edited.example:6443", tenant.Annotations[kube.AdvertiseAPIServerAnnotation])
	assert.Equal(t, "true", tenant.Annotations[kube.AdvertiseTrustedCAAnnotation])

	gen, err := flows.GenerateIdentity(ctx, provider, res.ConsumerID, "", nil)
	require.NoError(t, err)
	id := gen.Identity
	assert.Equal(t, "https://edited.example:6443", id.Spec.AuthParams.APIServer)
	var w warnings
	_, err = flows.ApplyIdentity(ctx, flows.ConsumerOptions{Consumer: consumer, ProviderID: res.ProviderID}, id, w.sink)
	require.NoError(t, err)
	assert.Equal(t, []string{flows.ReasonAdvertisedUnreachable}, w.reasons(), "edited.example does not resolve here")
	// The Identity's status already named the Secret: wait for its update.
	s, err := consumer.KubeconfigSecretFor(ctx, res.ProviderID)
	require.NoError(t, err)
	secrets := consumer.Kube.CoreV1().Secrets(s.Namespace)
	var cluster *clientcmdapi.Cluster
	_, err = kube.WaitFor(ctx, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(s.Name)), "the kubeconfig to name the edited address",
		func(s *corev1.Secret) (bool, error) {
			cfg, err := clientcmd.Load(s.Data[kube.KubeconfigField])
			if err != nil {
				return false, err
			}
			cluster = cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
			return cluster.Server == "https://edited.example:6443", nil
		})
	require.NoError(t, err)
	assert.Empty(t, cluster.CertificateAuthorityData)

	// Back to the provider's default: the annotations go, the status follows.
	tenant, err = flows.Readvertise(ctx, flows.ProviderOptions{Provider: provider, ConsumerID: res.ConsumerID}, handshake.Discard)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSuffix(provider.Server, "/"), tenant.Status.AuthParams.APIServer)
	assert.NotContains(t, tenant.Annotations, kube.AdvertiseAPIServerAnnotation)
	assert.Equal(t, provider.Config.CAData, tenant.Status.AuthParams.CA)
}

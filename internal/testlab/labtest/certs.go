package labtest

import (
	"context"
	stdcrypto "crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// SelfSigned is a client certificate for key in Liqo's shape (common name
// cn, organization liqo.io), valid from notBefore to notAfter: what a
// provider's renewal rule reads.
func SelfSigned(t testing.TB, key stdcrypto.Signer, cn string, notBefore, notAfter time.Time) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn, Organization: []string{kube.LiqoOrganization}},
		NotBefore:    notBefore, NotAfter: notAfter,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// DueCertificate is a certificate past 2/3 of its life and not expired:
// one a provider renews at once (Liqo v1.2's ShouldRenewCertificate).
func DueCertificate(t testing.TB, cn string) []byte {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	return SelfSigned(t, key, cn, time.Now().Add(-3*time.Hour), time.Now().Add(time.Hour))
}

// SetTenantCertificate writes cert as the certificate of the Tenant's
// status, whoever else writes that status meanwhile.
func SetTenantCertificate(t testing.TB, ctx context.Context, c *kube.Cluster, namespace, name string, cert []byte) {
	t.Helper()
	tenants := c.Liqo.Tenants(namespace)
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		tn, err := tenants.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		require.NotNil(t, tn.Status.AuthParams, "Tenant %s/%s has no certificate to replace", namespace, name)
		tn.Status.AuthParams.SignedCRT = cert
		_, err = tenants.UpdateStatus(ctx, tn, metav1.UpdateOptions{})
		return err
	}))
}

// RotateKeys gives the cluster new authentication keys of the same type in
// its keys Secret, as a re-install under the same cluster ID does (Liqo
// and this project read that Secret at each use).
func RotateKeys(t testing.TB, ctx context.Context, c *kube.Cluster) {
	t.Helper()
	pub, _, err := c.PublicKey(ctx)
	require.NoError(t, err)
	keyType, ok := authcrypto.KeyTypeOf(pub)
	require.True(t, ok)
	key, err := authcrypto.GenerateKey(keyType)
	require.NoError(t, err)
	fresh, err := kube.NewKeysSecret(c.Namespace, key)
	require.NoError(t, err)
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		secrets := c.Kube.CoreV1().Secrets(c.Namespace)
		s, err := secrets.Get(ctx, kube.AuthKeysSecretName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Data = fresh.Data
		_, err = secrets.Update(ctx, s, metav1.UpdateOptions{})
		return err
	}))
}

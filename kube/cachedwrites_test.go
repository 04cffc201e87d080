//go:build cluster

package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// CreateCertificateSecret stores a first certificate with one Create; a
// Secret that appeared meanwhile for the same CSR is updated, one for
// another CSR is left alone. UpdateCertificateSecret refuses a stale view.
func TestCreateCertificateSecret(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[0].Config, "")
	ctx := labtest.Context(t)
	require.NoError(t, err)
	const consumer = "cert-create-consumer"
	ns, _, err := c.EnsureTenantNamespace(ctx, consumer)
	require.NoError(t, err)
	csr := newCSR(t, consumer)

	s, err := c.CreateCertificateSecret(ctx, ns.Name, consumer, csr, []byte("cert-1"))
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"csr": csr, "certificate": []byte("cert-1")}, s.Data)
	assert.Equal(t, consumer, s.Labels[kube.RemoteClusterIDLabel])

	again, err := c.CreateCertificateSecret(ctx, ns.Name, consumer, csr, []byte("cert-2"))
	require.NoError(t, err)
	assert.Equal(t, []byte("cert-2"), again.Data["certificate"])

	_, err = c.CreateCertificateSecret(ctx, ns.Name, consumer, newCSR(t, consumer), []byte("cert-3"))
	require.ErrorIs(t, err, kube.ErrStoredCSRMismatch)
	cached, err := c.CachedCertificateIn(ctx, ns.Name, kube.RemoteCertSecretName, csr)
	require.NoError(t, err)
	assert.Equal(t, []byte("cert-2"), cached)

	_, err = c.UpdateCertificateSecret(ctx, ns.Name, consumer, csr, []byte("cert-4"), s) // s is stale
	assert.True(t, apierrors.IsConflict(err), "%v", err)
	renewed, err := c.UpdateCertificateSecret(ctx, ns.Name, consumer, csr, []byte("cert-4"), again)
	require.NoError(t, err)
	assert.Equal(t, []byte("cert-4"), renewed.Data["certificate"])
}

func newCSR(t *testing.T, cn string) []byte {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	csr, err := authcrypto.NewCSR(key, cn)
	require.NoError(t, err)
	return csr
}

// The Known variants of the bindings take the caller's word for what
// exists (no Get) and create the rest; AlreadyExists counts as there.
func TestBindTenantKnown(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[0].Config, "rbac-known-test")
	ctx := labtest.Context(t)
	require.NoError(t, err)
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: "rbac-known-provider"})
	require.NoError(t, err)
	const consumer = "rbac-known-consumer"
	ns, _, err := c.EnsureTenantNamespace(ctx, consumer)
	require.NoError(t, err)
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	forged, err := kube.ForgeTenant(consumer, ns.Name, key, []byte("sig"), "")
	require.NoError(t, err)
	tenant, _, err := c.ApplyTenant(ctx, forged)
	require.NoError(t, err)
	roles := []string{kube.RemoteControlPlaneClusterRole}
	crbName := kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, consumer)
	defer func() {
		_ = c.Kube.RbacV1().ClusterRoleBindings().Delete(ctx, crbName, metav1.DeleteOptions{})
	}()

	there := func(string, string) bool { return true }
	missing := func(string, string) bool { return false }
	changes, err := c.BindTenantNamespaceKnown(ctx, tenant, ns.Name, roles, there)
	require.NoError(t, err)
	assert.Equal(t, kube.Unchanged, changes[0].Action)
	_, err = c.Kube.RbacV1().RoleBindings(ns.Name).Get(ctx, kube.RoleBindingName(roles[0]), metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "taken at its word: %v", err)

	for _, want := range []kube.Action{kube.Created, kube.Unchanged} {
		changes, err = c.BindTenantNamespaceKnown(ctx, tenant, ns.Name, roles, missing)
		require.NoError(t, err)
		assert.Equal(t, want, changes[0].Action)
		changes, err = c.BindTenantClusterWideKnown(ctx, consumer, []string{kube.RemoteClusterWideClusterRole}, func(string) bool { return false })
		require.NoError(t, err)
		assert.Equal(t, want, changes[0].Action)
	}
	_, err = c.Kube.RbacV1().RoleBindings(ns.Name).Get(ctx, kube.RoleBindingName(roles[0]), metav1.GetOptions{})
	require.NoError(t, err)
}

// The provider issues a consumer's certificate once and then serves it from
// the liqo-remote-certificate Secret, refusing another CSR for that consumer.
func TestTenantCertificateCache(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[0].Config, "")
	ctx := labtest.Context(t)
	require.NoError(t, err)
	const consumer = "cert-cache-consumer"
	ns, _, err := c.EnsureTenantNamespace(ctx, consumer)
	require.NoError(t, err)
	csr := newCSR(t, consumer)

	cached, err := c.CachedCertificateIn(ctx, ns.Name, kube.RemoteCertSecretName, csr)
	require.NoError(t, err)
	assert.Nil(t, cached, "nothing cached yet")

	cert, issued, err := tenantCertificate(ctx, c, ns.Name, consumer, csr, false)
	require.NoError(t, err)
	assert.True(t, issued)
	parsed, err := authcrypto.ParseCertificatePEM(cert)
	require.NoError(t, err)
	assert.Equal(t, consumer, parsed.Subject.CommonName)
	s, err := c.Kube.CoreV1().Secrets(ns.Name).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, consumer, s.Labels[kube.RemoteClusterIDLabel])
	assert.Equal(t, csr, s.Data[kube.RemoteCertCSRField])
	assert.Equal(t, cert, s.Data[kube.RemoteCertCertificateField])

	again, issued, err := tenantCertificate(ctx, c, ns.Name, consumer, csr, false)
	require.NoError(t, err)
	assert.False(t, issued, "served from the cache")
	assert.Equal(t, cert, again)
	ch, err := c.StoreCertificateIn(ctx, ns.Name, kube.RemoteCertSecretName, consumer, csr, cert)
	require.NoError(t, err)
	assert.Equal(t, kube.Unchanged, ch.Action)

	otherKey, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	otherCSR, err := authcrypto.NewCSR(otherKey, consumer)
	require.NoError(t, err)
	_, _, err = tenantCertificate(ctx, c, ns.Name, consumer, otherCSR, false)
	require.ErrorIs(t, err, kube.ErrStoredCSRMismatch)
	assert.Contains(t, err.Error(), "delete secret "+ns.Name+"/liqo-remote-certificate on the provider")

	renewed, issued, err := tenantCertificate(ctx, c, ns.Name, consumer, csr, true)
	require.NoError(t, err)
	assert.True(t, issued)
	assert.NotEqual(t, cert, renewed)
	cached, err = c.CachedCertificateIn(ctx, ns.Name, kube.RemoteCertSecretName, csr)
	require.NoError(t, err)
	assert.Equal(t, renewed, cached)
}

// tenantCertificate is the provider's certificate for a consumer's CSR as
// the cache serves it: the cached one unless renew, else one issued through
// the Kubernetes CSR API and then cached. issued tells whether it is new.
func tenantCertificate(ctx context.Context, c *kube.Cluster, tenantNamespace, consumerID string, csr []byte, renew bool) (cert []byte, issued bool, err error) {
	if !renew {
		if cert, err = c.CachedCertificateIn(ctx, tenantNamespace, kube.RemoteCertSecretName, csr); err != nil || cert != nil {
			return cert, false, err
		}
	}
	issueCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cert, err = c.IssueCertificate(issueCtx, kube.CSRRequest{
		PEM: csr, GenerateName: kube.IdentityCSRGenerateName, Labels: map[string]string{kube.RemoteTenantCSRLabel: "true"},
		Reason: kube.IdentityApprovalReason, Message: kube.IdentityApprovalMessage,
	})
	if err != nil {
		return nil, false, fmt.Errorf("issuing the certificate of cluster %s: %w", consumerID, err)
	}
	if _, err := c.StoreCertificateIn(ctx, tenantNamespace, kube.RemoteCertSecretName, consumerID, csr, cert); err != nil {
		return nil, false, err
	}
	return cert, true, nil
}

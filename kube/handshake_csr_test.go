//go:build cluster

package kube_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// An approved Ed25519 CSR made by crypto/ is signed by the lab's
// kube-controller-manager, and the certificate authenticates as <CN> in
// groups liqo.io and system:authenticated — on both clusters.
func TestIssuedEd25519CertificateAuthenticates(t *testing.T) {
	for _, lc := range clusters(t)[:2] {
		t.Run(lc.Name, func(t *testing.T) {
			ctx := labtest.Context(t)
			c, err := kube.NewCluster(lc.Config, "")
			require.NoError(t, err)
			key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
			require.NoError(t, err)
			cn := "csr-test-" + lc.Name
			csrPEM, err := authcrypto.NewCSR(key, cn)
			require.NoError(t, err)

			certPEM, err := c.IssueCertificate(ctx, kube.CSRRequest{PEM: csrPEM, GenerateName: "liqo-identity-",
				Labels: map[string]string{kube.RemoteTenantCSRLabel: "true"}, Reason: "Test", Message: "approved by test"})
			require.NoError(t, err)
			require.Contains(t, string(certPEM), "-----BEGIN CERTIFICATE-----")

			keyPEM, err := authcrypto.EncodePrivateKeyPEM(key)
			require.NoError(t, err)
			user := rest.AnonymousClientConfig(lc.Config)
			user.CertData, user.KeyData = certPEM, keyPEM
			uc, err := kube.NewCluster(user, "")
			require.NoError(t, err)
			name, groups, err := uc.WhoAmI(ctx)
			require.NoError(t, err)
			assert.Equal(t, cn, name)
			assert.ElementsMatch(t, []string{"liqo.io", "system:authenticated"}, groups)

			// We delete the CSR objects we create (Liqo lets them pile up).
			list, err := c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{LabelSelector: kube.RemoteTenantCSRLabel})
			require.NoError(t, err)
			assert.Empty(t, list.Items)
		})
	}
}

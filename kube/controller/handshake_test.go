//go:build cluster

package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The whole handshake by hand, the way liqoctl authenticate drives it, with
// the provider's and the consumer's reconcilers doing their parts on two
// real clusters; the resulting kubeconfig reaches the provider as the
// consumer with exactly the permissions Liqo grants.
func TestHandshakeAcrossTwoClusters(t *testing.T) {
	p, c := providerCluster(t), consumerCluster(t)
	startManager(t, p, Options{Provider: true})
	startManager(t, c, Options{Consumer: true})
	ctx := labtest.Context(t)
	start := time.Now()

	provNS, _, err := p.EnsureTenantNamespace(ctx, consumerID)
	require.NoError(t, err)
	consNS, _, err := c.EnsureTenantNamespace(ctx, providerID)
	require.NoError(t, err)

	// Provider: the nonce creator fills the empty nonce Secret.
	_, err = p.EnsureNonceSecret(ctx, provNS.Name, consumerID)
	require.NoError(t, err)
	nonceSecret := waitSecret(t, p, provNS.Name, kube.NonceSecretName, func(s *corev1.Secret) bool { return len(s.Data[kube.NonceField]) > 0 })
	nonce := string(nonceSecret.Data[kube.NonceField])
	phases := []string{"nonce generated " + time.Since(start).String()}
	require.NoError(t, authcrypto.ValidateNonce(nonce))

	// Consumer: the nonce signer signs it with the cluster key.
	_, _, err = c.EnsureSignedNonceSecret(ctx, consNS.Name, providerID, nonce)
	require.NoError(t, err)
	signed := waitSecret(t, c, consNS.Name, kube.SignedNonceSecretName, func(s *corev1.Secret) bool { return len(s.Data[kube.SignedNonceField]) > 0 })
	phases = append(phases, "nonce signed "+time.Since(start).String())
	key, keyPEM, err := c.PrivateKey(ctx)
	require.NoError(t, err)
	require.NoError(t, authcrypto.VerifyNonce(key.Public(), []byte(nonce), signed.Data[kube.SignedNonceField]))

	// Provider: the Tenant is verified, its CSR signed, RBAC bound.
	tenant, err := kube.ForgeTenant(consumerID, provNS.Name, key, signed.Data[kube.SignedNonceField], "")
	require.NoError(t, err)
	_, _, err = p.ApplyTenant(ctx, tenant)
	require.NoError(t, err)
	// (A kube-apiserver delays creates by 2s while a CRD is less than 2s
	// old: right after Init, the Tenant apply above pays for it.)
	phases = append(phases, "tenant applied "+time.Since(start).String())
	accepted := waitTenant(t, p, provNS.Name, consumerID, statusFilled)
	phases = append(phases, "tenant accepted "+time.Since(start).String())
	assert.Equal(t, provNS.Name, accepted.Status.TenantNamespace)
	assert.Contains(t, accepted.Finalizers, kube.TenantFinalizer)
	params := accepted.Status.AuthParams
	cert, err := authcrypto.ParseCertificatePEM(params.SignedCRT)
	require.NoError(t, err)
	assert.Equal(t, consumerID, cert.Subject.CommonName)
	assert.Equal(t, []string{kube.LiqoOrganization}, cert.Subject.Organization)
	assert.Equal(t, strings.TrimSuffix(p.Config.Host, "/"), params.APIServer, "the kubeconfig server")
	assert.Regexp(t, `^https://127\.0\.0\.1:\d+$`, params.APIServer)
	assert.Equal(t, p.Config.CAData, params.CA)

	rb, err := p.Kube.RbacV1().RoleBindings(provNS.Name).Get(ctx, "liqo-binding-liqo-remote-controlplane", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, consumerID, rb.Subjects[0].Name)
	assert.Equal(t, "User", rb.Subjects[0].Kind)
	assert.Equal(t, map[string]string{kube.ManagedByLabel: "liqo", kube.RemoteClusterIDLabel: consumerID}, rb.Labels)
	require.NotNil(t, metav1.GetControllerOf(rb))
	assert.Equal(t, accepted.UID, metav1.GetControllerOf(rb).UID)
	crb, err := p.Kube.RbacV1().ClusterRoleBindings().Get(ctx, "liqo-binding-liqo-virtual-kubelet-remote-clusterwide-"+consumerID, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Group", crb.Subjects[0].Kind)
	assert.Equal(t, consumerID, crb.Subjects[0].Name)

	cached, err := p.Kube.CoreV1().Secrets(provNS.Name).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, tenant.Spec.CSR, cached.Data["csr"])
	assert.Equal(t, params.SignedCRT, cached.Data["certificate"])
	csrs, err := p.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{LabelSelector: kube.RemoteTenantCSRLabel})
	require.NoError(t, err)
	assert.Empty(t, csrs.Items, "issued CSRs are deleted")

	// Consumer: the Identity becomes a kubeconfig Secret.
	identity, err := kube.ForgeIdentity(providerID, consNS.Name, accepted)
	require.NoError(t, err)
	_, _, err = c.ApplyIdentity(ctx, identity)
	require.NoError(t, err)
	identities := c.Liqo.Identities(consNS.Name)
	gotID, err := kube.WaitFor(ctx, kube.ListWatch(identities.List, identities.Watch, kube.ByName(identity.Name)), "identity status",
		func(id *authv1beta1.Identity) (bool, error) { return id.Status.KubeconfigSecretRef != nil, nil })
	require.NoError(t, err)
	phases = append(phases, "identity ready "+time.Since(start).String())
	t.Logf("handshake: %v", phases)
	secretName := gotID.Status.KubeconfigSecretRef.Name
	assert.Equal(t, "kubeconfig-controlplane-"+providerID, secretName)
	kcSecret, err := c.Kube.CoreV1().Secrets(consNS.Name).Get(ctx, secretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, providerID, kcSecret.Labels[kube.RemoteClusterIDLabel])
	assert.Equal(t, "ControlPlane", kcSecret.Labels[kube.IdentityTypeLabel])
	assert.Equal(t, provNS.Name, kcSecret.Annotations[kube.RemoteTenantNamespace])
	require.NotNil(t, metav1.GetControllerOf(kcSecret))
	assert.Equal(t, gotID.UID, metav1.GetControllerOf(kcSecret).UID)

	// The kubeconfig authenticates to the provider as the consumer...
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kcSecret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	assert.Equal(t, keyPEM, cfg.KeyData)
	remote, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	user, groups, err := remote.WhoAmI(ctx)
	require.NoError(t, err)
	assert.Equal(t, consumerID, user)
	assert.Contains(t, groups, kube.LiqoOrganization)

	// ...which may manage ResourceSlices in its tenant namespace only.
	can := func(verb, resource, group, namespace string) bool {
		r, err := remote.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authzv1.SelfSubjectAccessReview{
			Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authzv1.ResourceAttributes{
				Verb: verb, Resource: resource, Group: group, Namespace: namespace}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		return r.Status.Allowed
	}
	assert.True(t, can("list", "resourceslices", authv1beta1.GroupName, provNS.Name))
	assert.True(t, can("create", "renews", authv1beta1.GroupName, provNS.Name))
	assert.False(t, can("list", "resourceslices", authv1beta1.GroupName, "default"))
	assert.False(t, can("list", "secrets", "", provNS.Name))
	assert.False(t, can("list", "tenants", authv1beta1.GroupName, provNS.Name))
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = dyn.Resource(authv1beta1.ResourceSliceGroupVersionResource).Namespace(provNS.Name).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	_, err = remote.Kube.CoreV1().Secrets(provNS.Name).List(ctx, metav1.ListOptions{})
	require.Error(t, err)

	// Humans got told at every step.
	waitEvent(t, p, "Secret", provNS.Name, kube.NonceSecretName, ReasonNonceGenerated)
	waitEvent(t, c, "Secret", consNS.Name, kube.SignedNonceSecretName, ReasonNonceSigned)
	waitEvent(t, p, authv1beta1.TenantKind, provNS.Name, consumerID, ReasonReconciled)
	waitEvent(t, c, "Secret", consNS.Name, secretName, ReasonKubeconfigEnsured)
	for _, reason := range eventReasons(t, p, authv1beta1.TenantKind, provNS.Name, consumerID) {
		assert.NotContains(t, []string{ReasonNonceNotFound, ReasonAuthParamsFailed, ReasonUpdateFailed}, reason)
	}
}

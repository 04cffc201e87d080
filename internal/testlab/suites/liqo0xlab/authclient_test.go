//go:build cluster

package liqo0xlab_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// Liqo0xPeerInfo reads on a real 0.x provider what `liqoctl generate
// peer-command` prints: its ID and name, the token the auth server created,
// and the URL of the Service's override annotations; --auth-url wins.
func TestLiqo0xPeerInfoOnRealProvider(t *testing.T) {
	provider := testLab.Clusters(t)[0]
	ctx := liqo0xContext(t)
	srv := realliqo0x.StartAuthServer(t, ctx, provider, providerID, providerName)
	c, err := kube.NewCluster(provider.Config, realliqo0x.Namespace)
	require.NoError(t, err)

	info, err := liqo0x.On(c).PeerInfo(ctx, "")
	require.NoError(t, err)
	token, err := realliqo0x.AuthToken(ctx, provider.Config)
	require.NoError(t, err)
	assert.Equal(t, providerID, info.ClusterID)
	assert.Equal(t, providerName, info.ClusterName)
	assert.Equal(t, token, info.Token)
	assert.Equal(t, srv.URL, info.AuthURL, "the override annotations, as liqoctl advertises them")
	assert.Equal(t, peerinfo.V04, info.Line, "v0.10.1's CRDs have peeringType")
	assert.False(t, info.AuthenticationDisabled, "no Deployment in the lab: nothing says it is disabled")

	info, err = liqo0x.On(c).PeerInfo(ctx, "https://auth.example.com:8443/")
	require.NoError(t, err)
	assert.Equal(t, "https://auth.example.com:8443", info.AuthURL)
	_, err = liqo0x.On(c).PeerInfo(ctx, "http://auth.example.com")
	require.ErrorContains(t, err, "not https")

	// A cluster prepared by init runs no 0.x auth server: one line says so.
	plain, err := kube.NewCluster(testLab.Clusters(t)[2].Config, "")
	require.NoError(t, err)
	_, err = plain.Init(ctx, kube.InitOptions{})
	require.NoError(t, err)
	_, err = liqo0x.On(plain).PeerInfo(ctx, "")
	require.ErrorContains(t, err, "not Liqo 0.x")
}

// CheckToken tells a right token from a wrong one and spots a server with
// authentication disabled, and its probes create nothing on the provider.
func TestLiqo0xCheckTokenCreatesNothing(t *testing.T) {
	provider := testLab.Clusters(t)[0]
	ctx := liqo0xContext(t)
	srv := realliqo0x.StartAuthServer(t, ctx, provider, providerID, providerName)
	open := realliqo0x.StartOpenAuthServer(t, provider, providerID, providerName)
	token, err := realliqo0x.AuthToken(ctx, provider.Config)
	require.NoError(t, err)
	c, err := kube.NewCluster(provider.Config, realliqo0x.Namespace)
	require.NoError(t, err)
	before := providerObjects(t, ctx, c)

	client, err := liqo0x.NewAuthClient(liqo0x.AuthOptions{URL: srv.URL, InsecureSkipTLSVerify: true})
	require.NoError(t, err)
	check, err := client.CheckToken(ctx, token)
	require.NoError(t, err)
	assert.Equal(t, liqo0x.TokenAccepted, check)
	check, err = client.CheckToken(ctx, strings.Repeat("0", peerinfo.TokenLength))
	require.NoError(t, err)
	assert.Equal(t, liqo0x.TokenRefused, check)
	disabled, err := client.AuthenticationDisabled(ctx)
	require.NoError(t, err)
	assert.False(t, disabled)

	openClient, err := liqo0x.NewAuthClient(liqo0x.AuthOptions{URL: open.URL, InsecureSkipTLSVerify: true})
	require.NoError(t, err)
	for _, tok := range []string{token, strings.Repeat("0", peerinfo.TokenLength)} {
		check, err = openClient.CheckToken(ctx, tok)
		require.NoError(t, err)
		assert.Equal(t, liqo0x.TokenAuthenticationDisabled, check)
	}

	assert.Equal(t, before, providerObjects(t, ctx, c), "the probes created nothing")
}

// providerObjects names the namespaces, Secrets, RoleBindings and CSRs of a
// cluster: what an identity request would create.
func providerObjects(t *testing.T, ctx context.Context, c *kube.Cluster) []string {
	t.Helper()
	var names []string
	nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, o := range nss.Items {
		names = append(names, "Namespace "+o.Name)
	}
	secrets, err := c.Kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, o := range secrets.Items {
		names = append(names, "Secret "+o.Namespace+"/"+o.Name+" "+o.ResourceVersion)
	}
	rbs, err := c.Kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, o := range rbs.Items {
		names = append(names, "RoleBinding "+o.Namespace+"/"+o.Name)
	}
	csrs, err := c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, o := range csrs.Items {
		names = append(names, "CSR "+o.Name)
	}
	sort.Strings(names)
	return names
}

// This tool is the 0.x consumer on a cluster without Liqo ("plain", prepared
// by init): it requests an identity from the real auth server with a pending
// key and CSR kept in a Secret, stores the answer as the v1 flow's kubeconfig
// Secret, which authenticates to the provider as <consumer ID> in liqo.io.
// A second request for the same ID is explained as already issued, and the
// provider's stored certificate can be read back.
func TestToolAsLiqo0xConsumer(t *testing.T) {
	cs := testLab.Clusters(t)
	provider, plain := cs[0], cs[2]
	ctx := liqo0xContext(t)
	srv := realliqo0x.StartAuthServer(t, ctx, provider, providerID, providerName)
	prov, err := kube.NewCluster(provider.Config, realliqo0x.Namespace)
	require.NoError(t, err)
	cons, err := kube.NewCluster(plain.Config, "")
	require.NoError(t, err)
	initRes, err := cons.Init(ctx, kube.InitOptions{})
	require.NoError(t, err)
	me := initRes.ClusterID
	t.Cleanup(func() { realliqo0x.CleanupPair(t, prov.Config, cons.Config, providerID, me) })

	client, err := liqo0x.NewAuthClient(liqo0x.AuthOptions{URL: srv.URL, InsecureSkipTLSVerify: true})
	require.NoError(t, err)
	ids, err := client.IDs(ctx)
	require.NoError(t, err)
	assert.Equal(t, &liqo0x.ClusterIdentity{ClusterID: providerID, ClusterName: providerName}, ids)
	assert.False(t, client.TLSVerified(), "the chart's certificate has no SAN: verification was skipped")

	keyPEM, csrPEM, err := liqo0x.On(cons).PendingRequest(ctx, providerID, me)
	require.NoError(t, err)
	again, csrAgain, err := liqo0x.On(cons).PendingRequest(ctx, providerID, me)
	require.NoError(t, err)
	assert.Equal(t, keyPEM, again, "a re-run reuses the pending key")
	assert.Equal(t, csrPEM, csrAgain, "and its CSR")

	token, err := realliqo0x.AuthToken(ctx, provider.Config)
	require.NoError(t, err)
	resp, err := client.RequestIdentity(ctx, liqo0x.IdentityRequest{ConsumerID: me, ConsumerName: "plain", Token: token, CSR: csrPEM})
	require.NoError(t, err)
	assert.False(t, client.TLSVerified())
	assert.Equal(t, provider.Config.Host, resp.APIServerURL)
	assert.Equal(t, liqo0x.TenantNamespaceName(peerinfo.V04, me, "plain"), resp.Namespace)

	kubeconfig, err := liqo0x.Kubeconfig(providerID, resp, keyPEM)
	require.NoError(t, err)
	change, err := liqo0x.On(cons).StoreKubeconfig(ctx, providerID, resp.Namespace, kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, kube.Created, change.Action)
	change, err = liqo0x.On(cons).StoreKubeconfig(ctx, providerID, resp.Namespace, kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, kube.Unchanged, change.Action, "storing again changes nothing")

	secret, err := liqo0x.On(cons).KubeconfigSecret(ctx, providerID)
	require.NoError(t, err)
	assert.Equal(t, kube.TenantNamespaceName(providerID), secret.Namespace)
	assert.NotContains(t, secret.Labels, kube.IdentityTypeLabel, "no v1 component may select a 0.x identity")
	_, err = cons.KubeconfigSecretFor(ctx, providerID)
	assert.True(t, kube.IsNotFound(err), "the v1 lookup (Liqo's) does not find the 0.x identity: %v", err)
	assert.Equal(t, resp.Namespace, secret.Annotations[kube.RemoteTenantNamespace])
	assert.Equal(t, "true", secret.Labels[liqo0x.ClientLabel])
	_, err = cons.Kube.CoreV1().Secrets(secret.Namespace).Get(ctx, liqo0x.PendingSecretPrefix+providerID, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "the pending request is gone once the kubeconfig is stored: %v", err)

	cfg, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[kube.KubeconfigField])
	require.NoError(t, err)
	if len(cfg.CAData) == 0 {
		cfg.CAData = provider.Config.CAData // the server sends its CA when it has one
	}
	remote, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	user, groups, err := remote.WhoAmI(ctx)
	require.NoError(t, err)
	assert.Equal(t, me, user)
	assert.Contains(t, groups, "liqo.io")

	// The provider issues one identity per cluster ID: the same CSR and a new one are both refused.
	_, newCSR, err := liqo0x.On(cons).PendingRequest(ctx, providerID, me)
	require.NoError(t, err)
	for _, csr := range [][]byte{csrPEM, newCSR} {
		_, err = client.RequestIdentity(ctx, liqo0x.IdentityRequest{ConsumerID: me, ConsumerName: "plain", Token: token, CSR: csr})
		var authErr *liqo0x.AuthError
		require.True(t, errors.As(err, &authErr), "%v", err)
		assert.Equal(t, liqo0x.AlreadyIssued, authErr.Refusal)
		assert.Equal(t, 403, authErr.Status)
		assert.Contains(t, err.Error(), liqo0x.ClusterIDLabel+"="+me)
		assert.NotContains(t, err.Error(), token)
	}

	// A wrong token never appears in what the error says.
	wrong := strings.Repeat("ab", peerinfo.TokenLength/2)
	_, err = client.RequestIdentity(ctx, liqo0x.IdentityRequest{ConsumerID: me, ConsumerName: "plain", Token: wrong, CSR: newCSR})
	var authErr *liqo0x.AuthError
	require.True(t, errors.As(err, &authErr), "%v", err)
	assert.Equal(t, liqo0x.WrongToken, authErr.Refusal)
	assert.NotContains(t, err.Error(), wrong)
	assert.NotContains(t, authErr.Body, wrong)

	ns, storedCSR, cert, err := liqo0x.On(prov).IssuedCertificate(ctx, me)
	require.NoError(t, err)
	assert.Equal(t, resp.Namespace, ns)
	assert.Equal(t, csrPEM, storedCSR, "the provider stored the pending CSR")
	assert.Equal(t, resp.Certificate, cert)
	_, _, _, err = liqo0x.On(prov).IssuedCertificate(ctx, "never-issued")
	assert.True(t, kube.IsNotFound(err), "%v", err)
}

func csrCommonName(csr certificatesv1.CertificateSigningRequest) string {
	req, err := authcrypto.ParseCSR(csr.Spec.Request)
	if err != nil {
		return ""
	}
	return req.Subject.CommonName
}

func deleteNamespace(t *testing.T, ctx context.Context, c *kube.Cluster, name string) {
	t.Helper()
	nss := c.Kube.CoreV1().Namespaces()
	if err := nss.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !kube.IsNotFound(err) {
		require.NoError(t, err)
	}
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(nss.List, nss.Watch, kube.ByName(name)), &corev1.Namespace{}, "namespace "+name))
}

//go:build cluster

package legacylab_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/liqolegacy"
)

// recorder is a Sink that keeps every event of a flow, so that tests can
// look for a line and check that no event ever carries a token.
type recorder struct {
	mu     sync.Mutex
	events []handshake.Event
}

func (r *recorder) sink(ev handshake.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

// texts are all the words the events show: messages, commands, errors.
func (r *recorder) texts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		out = append(out, ev.Message, ev.Command)
		if ev.Err != nil {
			out = append(out, ev.Err.Error())
		}
	}
	return out
}

// has tells whether an event's message contains substr.
func (r *recorder) has(substr string) bool {
	for _, s := range r.texts() {
		if strings.Contains(s, substr) {
			return true
		}
	}
	return false
}

// warnings are the Warning cluster events with reason.
func (r *recorder) warnings(reason string) []handshake.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []handshake.Event
	for _, ev := range r.events {
		if ev.Kind == handshake.ClusterEvent && ev.Warning && ev.Reason == reason {
			out = append(out, ev)
		}
	}
	return out
}

// requireNoToken fails if any event shows token.
func (r *recorder) requireNoToken(t *testing.T, token string) {
	t.Helper()
	for _, s := range r.texts() {
		require.NotContains(t, s, token, "an event shows the token")
	}
}

// legacyOptions are the options the tests share: the lab's auth servers
// have the chart's self-signed certificate without SAN.
func legacyOptions() flows.LegacyOptions {
	return flows.LegacyOptions{InsecureSkipTLSVerify: true, StepTimeout: time.Minute}
}

func wrongToken(t *testing.T) string {
	t.Helper()
	raw := make([]byte, kube.LegacyTokenLength/2)
	_, err := rand.Read(raw)
	require.NoError(t, err)
	return hex.EncodeToString(raw)
}

// toolPair is a 0.x provider with its real auth server and the "plain"
// cluster, prepared by init, where this tool is the 0.x consumer; what an
// authentication leaves is removed on both sides when the test ends.
type toolPair struct {
	provider, consumer *kube.Cluster
	server             *liqolegacy.AuthServer
	consumerID         string
}

func startToolPair(t *testing.T, ctx context.Context) *toolPair {
	t.Helper()
	cs := testLab.Clusters(t)
	srv := startProvider(t, ctx, cs[0])
	prov, err := kube.NewCluster(cs[0].Config, liqolegacy.Namespace)
	require.NoError(t, err)
	cons, err := kube.NewCluster(cs[2].Config, "")
	require.NoError(t, err)
	initRes, err := cons.Init(ctx, kube.InitOptions{})
	require.NoError(t, err)
	p := &toolPair{provider: prov, consumer: cons, server: srv, consumerID: initRes.ClusterID}
	t.Cleanup(func() { cleanupLegacyConsumer(t, prov, cons, p.consumerID) })
	require.Empty(t, tenantNamespacesOf(t, ctx, prov, p.consumerID), "the provider must start without a tenant namespace for %s", p.consumerID)
	_, err = cons.KubeconfigSecretFor(ctx, providerID)
	require.True(t, kube.IsNotFound(err), "the consumer must start without an identity for the provider: %v", err)
	return p
}

// tenantNamespacesOf are the provider's tenant namespaces for consumerID.
func tenantNamespacesOf(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID string) []string {
	t.Helper()
	nss, err := provider.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{
		LabelSelector: labels.Set{kube.LegacyClusterIDLabel: consumerID, kube.LegacyTenantNamespaceLabel: "true"}.String()})
	require.NoError(t, err)
	names := []string{}
	for _, ns := range nss.Items {
		names = append(names, ns.Name)
	}
	return names
}

// csrsOf counts the provider's CSRs whose subject is consumerID.
func csrsOf(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID string) int {
	t.Helper()
	csrs, err := provider.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	n := 0
	for _, csr := range csrs.Items {
		if csrCommonName(csr) == consumerID {
			n++
		}
	}
	return n
}

// kubeconfigConfig is the rest config of a kubeconfig this tool obtained;
// the lab's auth server hands out no CA when it has none, as Liqo's does.
func kubeconfigConfig(t *testing.T, kubeconfig []byte, provider *kube.Cluster) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	require.NoError(t, err)
	if len(cfg.CAData) == 0 {
		cfg.CAData = provider.Config.CAData
	}
	return cfg
}

// whoAmI asks the provider who cfg is.
func whoAmI(t *testing.T, ctx context.Context, cfg *rest.Config) (string, []string) {
	t.Helper()
	c, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	user, groups, err := c.WhoAmI(ctx)
	require.NoError(t, err)
	return user, groups
}

// The automated flow between two clusters running Liqo 0.x: the consumer's
// own Liqo authenticates; verify shows the identity; a second run reports
// the identity already held and sends nothing, even with a wrong token,
// which then never replaces the stored one.
func TestLegacyFlowAutomatedBetweenLiqoClusters(t *testing.T) {
	ctx := legacyContext(t)
	p := startLegacyPair(t, ctx)

	rec := &recorder{}
	start := time.Now()
	res, err := flows.AuthenticateLegacy(ctx, p.consumer, p.provider, "", legacyOptions(), rec.sink)
	require.NoError(t, err)
	t.Logf("timing: AuthenticateLegacy (Liqo 0.x consumer) → authenticated in %s (liqoctl peer out-of-band: 1.3–1.7 s)", time.Since(start).Round(time.Millisecond))
	assert.False(t, res.ByTool, "the consumer's own Liqo authenticated")
	assert.False(t, res.AlreadyAuthenticated)
	assert.Equal(t, consumerID, res.ConsumerID)
	assert.Equal(t, providerID, res.ProviderID)
	assert.Regexp(t, `^liqo-tenant-`+providerName+`-[0-9a-f]{6}/liqo-identity-`, res.IdentitySecret)
	assert.Equal(t, consumerID, res.User)
	assert.Contains(t, res.Groups, "liqo.io")
	assert.Nil(t, res.Kubeconfig, "the identity stays in Liqo's Secret")
	assert.WithinDuration(t, time.Now().AddDate(1, 0, 0), res.NotAfter, 48*time.Hour)
	assert.Regexp(t, `^liqo-tenant-`+consumerName+`-[0-9a-f]{6}$`, strings.Join(providerTenantNamespaces(t, ctx, p.provider), ","),
		"one tenant namespace on the provider")
	rec.requireNoToken(t, p.info.Token)

	v, err := flows.Verify(ctx, p.consumer, providerID)
	require.NoError(t, err)
	assert.Equal(t, consumerID, v.User)
	assert.Contains(t, v.Groups, "liqo.io")
	assert.Equal(t, providerTenantNamespaces(t, ctx, p.provider)[0], v.TenantNamespace)

	again := &recorder{}
	res2, err := flows.AuthenticateLegacy(ctx, p.consumer, p.provider, "", legacyOptions(), again.sink)
	require.NoError(t, err)
	assert.True(t, res2.AlreadyAuthenticated)
	assert.Equal(t, res.IdentitySecret, res2.IdentitySecret)
	assert.True(t, again.has("does NOT send the token"), "the run says the token was not sent: %q", again.texts())

	tokenSecret := func() *corev1.Secret {
		s, err := p.consumer.Kube.CoreV1().Secrets(liqolegacy.Namespace).Get(ctx, kube.LegacyRemoteTokenPrefix+providerID, metav1.GetOptions{})
		require.NoError(t, err)
		return s
	}
	before := tokenSecret()
	wrong := *p.info
	wrong.Token = wrongToken(t)
	withWrong := &recorder{}
	res3, err := flows.ApplyPeerInfo(ctx, p.consumer, &wrong, legacyOptions(), withWrong.sink)
	require.NoError(t, err)
	assert.True(t, res3.AlreadyAuthenticated, "Liqo reuses the identity and never sends the token")
	after := tokenSecret()
	assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "the token Secret is not overwritten")
	assert.Equal(t, p.info.Token, string(after.Data["token"]))
	withWrong.requireNoToken(t, wrong.Token)
}

// The manual flow between two clusters running Liqo 0.x: the peer info
// gathered on the provider travels as one line and, applied on the
// consumer without the provider at hand, authenticates it.
func TestLegacyFlowManualBetweenLiqoClusters(t *testing.T) {
	ctx := legacyContext(t)
	p := startLegacyPair(t, ctx)

	rec := &recorder{}
	info, err := flows.GeneratePeerInfo(ctx, p.provider, "", rec.sink)
	require.NoError(t, err)
	assert.Equal(t, p.info.ClusterID, info.ClusterID)
	assert.Equal(t, p.info.AuthURL, info.AuthURL)
	assert.False(t, info.AuthenticationDisabled)
	line, err := flows.EncodePeerInfo(info)
	require.NoError(t, err)
	assert.NotContains(t, line, "\n")
	assert.NotContains(t, line, info.Token)
	parsed, err := flows.ParsePeerInfo([]byte("  " + line + "\n"))
	require.NoError(t, err)
	assert.Equal(t, info, parsed)

	res, err := flows.ApplyPeerInfo(ctx, p.consumer, parsed, legacyOptions(), rec.sink)
	require.NoError(t, err)
	assert.True(t, rec.has("AuthenticationStatus Established"), "%q", rec.texts())
	assert.False(t, res.ByTool)
	assert.False(t, res.AlreadyAuthenticated)
	assert.Equal(t, consumerID, res.User)
	assert.Contains(t, res.Groups, "liqo.io")
	assert.Len(t, providerTenantNamespaces(t, ctx, p.provider), 1)
	rec.requireNoToken(t, info.Token)
}

// This tool as the 0.x consumer of a cluster prepared by init, against the
// real auth server: automated, re-run, manual, and a run whose answer was
// lost after the provider issued the certificate.
func TestLegacyFlowToolConsumer(t *testing.T) {
	ctx := legacyContext(t)
	p := startToolPair(t, ctx)

	rec := &recorder{}
	start := time.Now()
	res, err := flows.AuthenticateLegacy(ctx, p.consumer, p.provider, "", legacyOptions(), rec.sink)
	require.NoError(t, err)
	t.Logf("timing: AuthenticateLegacy (this tool as the consumer) → authenticated in %s", time.Since(start).Round(time.Millisecond))
	assert.True(t, res.ByTool)
	assert.False(t, res.AlreadyAuthenticated)
	assert.False(t, res.TLSVerified, "the harness certificate has no SAN")
	assert.True(t, rec.has("TLS certificate not verified"), "the run says TLS verification was skipped: %q", rec.texts())
	assert.Equal(t, kube.TenantNamespaceName(providerID)+"/"+kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID)), res.IdentitySecret)
	assert.Equal(t, p.consumerID, res.User)
	assert.Contains(t, res.Groups, "liqo.io")
	require.NotEmpty(t, res.Kubeconfig)
	user, groups := whoAmI(t, ctx, kubeconfigConfig(t, res.Kubeconfig, p.provider))
	assert.Equal(t, p.consumerID, user, "the kubeconfig authenticates as the consumer's cluster ID")
	assert.Contains(t, groups, "liqo.io")
	assert.Len(t, tenantNamespacesOf(t, ctx, p.provider, p.consumerID), 1)
	token, err := liqolegacy.AuthToken(ctx, p.provider.Config)
	require.NoError(t, err)
	rec.requireNoToken(t, token)

	v, err := flows.Verify(ctx, p.consumer, providerID)
	require.NoError(t, err)
	assert.Equal(t, p.consumerID, v.User)

	again := &recorder{}
	res2, err := flows.AuthenticateLegacy(ctx, p.consumer, p.provider, "", legacyOptions(), again.sink)
	require.NoError(t, err)
	assert.True(t, res2.AlreadyAuthenticated)
	assert.True(t, res2.ByTool)
	assert.True(t, again.has("nothing is sent"), "%q", again.texts())
	assert.Equal(t, 1, csrsOf(t, ctx, p.provider, p.consumerID), "no new identity")

	t.Run("manual", func(t *testing.T) {
		cleanupLegacyConsumer(t, p.provider, p.consumer, p.consumerID)
		rec := &recorder{}
		info, err := flows.GeneratePeerInfo(ctx, p.provider, "", rec.sink)
		require.NoError(t, err)
		line, err := flows.EncodePeerInfo(info)
		require.NoError(t, err)
		parsed, err := flows.ParsePeerInfo([]byte(line))
		require.NoError(t, err)
		res, err := flows.ApplyPeerInfo(ctx, p.consumer, parsed, legacyOptions(), rec.sink)
		require.NoError(t, err)
		assert.True(t, res.ByTool)
		assert.False(t, res.AlreadyAuthenticated)
		user, groups := whoAmI(t, ctx, kubeconfigConfig(t, res.Kubeconfig, p.provider))
		assert.Equal(t, p.consumerID, user)
		assert.Contains(t, groups, "liqo.io")
		rec.requireNoToken(t, info.Token)
	})

	t.Run("interrupted after the request was sent", func(t *testing.T) {
		cleanupLegacyConsumer(t, p.provider, p.consumer, p.consumerID)
		info, err := flows.GeneratePeerInfo(ctx, p.provider, "", nil)
		require.NoError(t, err)
		// An earlier run sent its pending CSR, and the answer was lost.
		_, csrPEM, err := p.consumer.LegacyPendingRequest(ctx, providerID, p.consumerID)
		require.NoError(t, err)
		client, err := kube.NewLegacyAuthClient(kube.LegacyAuthOptions{URL: info.AuthURL, InsecureSkipTLSVerify: true})
		require.NoError(t, err)
		lost, err := client.RequestIdentity(ctx, kube.LegacyIdentityRequest{ConsumerID: p.consumerID,
			ConsumerName: flows.DefaultLegacyClusterName(p.consumerID), Token: info.Token, CSR: csrPEM})
		require.NoError(t, err)

		o := legacyOptions()
		o.Provider = p.provider
		rec := &recorder{}
		res, err := flows.ApplyPeerInfo(ctx, p.consumer, info, o, rec.sink)
		require.NoError(t, err)
		assert.True(t, rec.has("completing with it"), "%q", rec.texts())
		cfg := kubeconfigConfig(t, res.Kubeconfig, p.provider)
		assert.Equal(t, strings.TrimSpace(string(lost.Certificate)), strings.TrimSpace(string(cfg.CertData)), "the certificate the provider issued to the lost request")
		user, _ := whoAmI(t, ctx, cfg)
		assert.Equal(t, p.consumerID, user)
		assert.Equal(t, []string{lost.Namespace}, tenantNamespacesOf(t, ctx, p.provider, p.consumerID))
		assert.Equal(t, 1, csrsOf(t, ctx, p.provider, p.consumerID), "no new identity")
		_, err = p.consumer.Kube.CoreV1().Secrets(kube.TenantNamespaceName(providerID)).Get(ctx, kube.LegacyPendingSecretPrefix+providerID, metav1.GetOptions{})
		assert.True(t, kube.IsNotFound(err), "the pending request is gone: %v", err)
	})
}

// A wrong token, on both consumer paths: one line naming the cause within
// seconds, never the token, and nothing on the provider (nor, with this
// tool as the consumer, on the consumer).
func TestLegacyFlowWrongToken(t *testing.T) {
	check := func(t *testing.T, err error, elapsed time.Duration, token string) {
		t.Helper()
		require.Error(t, err)
		t.Logf("timing: wrong token reported in %s: %v", elapsed.Round(time.Millisecond), err)
		assert.Less(t, elapsed, 15*time.Second)
		assert.Contains(t, err.Error(), "wrong token")
		assert.NotContains(t, err.Error(), "\n")
		assert.NotContains(t, err.Error(), token)
	}

	t.Run("liqo consumer", func(t *testing.T) {
		ctx := legacyContext(t)
		p := startLegacyPair(t, ctx)
		wrong := *p.info
		wrong.Token = wrongToken(t)
		rec := &recorder{}
		start := time.Now()
		_, err := flows.ApplyPeerInfo(ctx, p.consumer, &wrong, legacyOptions(), rec.sink)
		check(t, err, time.Since(start), wrong.Token)
		rec.requireNoToken(t, wrong.Token)
		assert.Empty(t, providerTenantNamespaces(t, ctx, p.provider), "no tenant namespace on the provider")
		assert.Zero(t, csrsOf(t, ctx, p.provider, consumerID), "no CSR on the provider")
		_, err = p.consumer.Kube.CoreV1().Secrets(liqolegacy.Namespace).Get(ctx, kube.LegacyRemoteTokenPrefix+providerID, metav1.GetOptions{})
		assert.True(t, kube.IsNotFound(err), "no token Secret on the consumer: %v", err)
		_, err = dynamicFC(t, ctx, p.consumer)
		assert.True(t, kube.IsNotFound(err), "no ForeignCluster on the consumer: %v", err)
	})

	t.Run("tool consumer", func(t *testing.T) {
		ctx := legacyContext(t)
		p := startToolPair(t, ctx)
		info, err := flows.GeneratePeerInfo(ctx, p.provider, "", nil)
		require.NoError(t, err)
		info.Token = wrongToken(t)
		providerBefore, consumerBefore := providerObjects(t, ctx, p.provider), providerObjects(t, ctx, p.consumer)
		rec := &recorder{}
		start := time.Now()
		_, err = flows.ApplyPeerInfo(ctx, p.consumer, info, legacyOptions(), rec.sink)
		check(t, err, time.Since(start), info.Token)
		rec.requireNoToken(t, info.Token)
		assert.Equal(t, providerBefore, providerObjects(t, ctx, p.provider), "nothing written on the provider")
		assert.Equal(t, consumerBefore, providerObjects(t, ctx, p.consumer), "nothing written on the consumer")
	})
}

// The provider issues one identity per cluster ID: once the consumer lost
// it, a new request is refused with the provider's object named; with the
// provider at hand and --reissue the tool deletes it and gets a new one.
func TestLegacyFlowSecondRequestAndReissue(t *testing.T) {
	ctx := legacyContext(t)
	p := startToolPair(t, ctx)
	first, err := flows.AuthenticateLegacy(ctx, p.consumer, p.provider, "", legacyOptions(), nil)
	require.NoError(t, err)
	firstCert := kubeconfigConfig(t, first.Kubeconfig, p.provider).CertData
	issuedNS := tenantNamespacesOf(t, ctx, p.provider, p.consumerID)
	require.Len(t, issuedNS, 1)

	// The consumer loses its identity; the provider keeps its record.
	deleteNamespace(t, ctx, p.consumer, kube.TenantNamespaceName(providerID))
	info, err := flows.GeneratePeerInfo(ctx, p.provider, "", nil)
	require.NoError(t, err)

	_, err = flows.ApplyPeerInfo(ctx, p.consumer, info, legacyOptions(), nil)
	require.Error(t, err, "manual mode: refused")
	t.Logf("manual mode: %v", err)
	assert.Contains(t, err.Error(), "already issued")
	assert.Contains(t, err.Error(), "liqo-remote-certificate")
	assert.Contains(t, err.Error(), "kubectl get ns -l "+kube.LegacyClusterIDLabel+"="+p.consumerID, "the provider's namespace is found by its label")
	assert.NotContains(t, err.Error(), info.Token)

	_, err = flows.AuthenticateLegacy(ctx, p.consumer, p.provider, "", legacyOptions(), nil)
	require.Error(t, err, "automated mode without --reissue: refused")
	t.Logf("automated mode: %v", err)
	assert.Contains(t, err.Error(), "-n "+issuedNS[0]+" delete secret liqo-remote-certificate")
	assert.Contains(t, err.Error(), "--reissue")
	assert.Equal(t, issuedNS, tenantNamespacesOf(t, ctx, p.provider, p.consumerID), "nothing deleted without --reissue")

	o := legacyOptions()
	o.Reissue = true
	rec := &recorder{}
	res, err := flows.AuthenticateLegacy(ctx, p.consumer, p.provider, "", o, rec.sink)
	require.NoError(t, err)
	assert.True(t, rec.has("--reissue"), "the run says it deleted the old identity: %q", rec.texts())
	cfg := kubeconfigConfig(t, res.Kubeconfig, p.provider)
	assert.NotEqual(t, firstCert, cfg.CertData, "a new certificate")
	_, _, issued, err := p.provider.LegacyIssuedCertificate(ctx, p.consumerID)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(string(issued)), strings.TrimSpace(string(cfg.CertData)))
	user, _ := whoAmI(t, ctx, cfg)
	assert.Equal(t, p.consumerID, user)
	assert.NotContains(t, csrCertificatesOf(t, ctx, p.provider, p.consumerID), strings.TrimSpace(string(firstCert)), "the old CSR was deleted with the old identity")
}

// csrCertificatesOf are the certificates of the provider's CSRs whose
// subject is consumerID.
func csrCertificatesOf(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID string) []string {
	t.Helper()
	csrs, err := provider.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, csr := range csrs.Items {
		if csrCommonName(csr) == consumerID {
			out = append(out, strings.TrimSpace(string(csr.Status.Certificate)))
		}
	}
	return out
}

// A provider whose auth server runs with authentication disabled (the
// chart's liqo-auth Deployment says --enable-authentication=false): the
// peer info says so with a Warning, and applying it warns again.
func TestLegacyFlowAuthenticationDisabled(t *testing.T) {
	ctx := legacyContext(t)
	p := startToolPair(t, ctx)
	cs := testLab.Clusters(t)
	open := liqolegacy.StartAuthService(t, cs[0].KubeconfigPath, liqolegacy.AuthOptions{
		ClusterID: providerID, ClusterName: providerName, Address: liqolegacy.FreeAddress(t),
		APIServerAddress: cs[0].Config.Host, DisableAuthentication: true})
	createAuthDeployment(t, ctx, p.provider, "--enable-authentication=false")

	rec := &recorder{}
	info, err := flows.GeneratePeerInfo(ctx, p.provider, open.URL, rec.sink)
	require.NoError(t, err)
	assert.True(t, info.AuthenticationDisabled)
	require.NotEmpty(t, rec.warnings(flows.ReasonLegacyAuthenticationDisabled), "a Warning: %q", rec.texts())
	assert.Contains(t, rec.warnings(flows.ReasonLegacyAuthenticationDisabled)[0].Message, open.URL)

	applied := &recorder{}
	res, err := flows.ApplyPeerInfo(ctx, p.consumer, info, legacyOptions(), applied.sink)
	require.NoError(t, err)
	assert.True(t, res.AuthenticationDisabled)
	assert.NotEmpty(t, applied.warnings(flows.ReasonLegacyAuthenticationDisabled), "applying warns too: %q", applied.texts())
}

// createAuthDeployment creates the liqo-auth Deployment as the chart names
// it, with args; lab clusters run the auth server as a process, so nothing
// runs it: it only says how the server is configured.
func createAuthDeployment(t *testing.T, ctx context.Context, c *kube.Cluster, args ...string) {
	t.Helper()
	sel := map[string]string{"run": "auth-service"}
	deploys := c.Kube.AppsV1().Deployments(liqolegacy.Namespace)
	_, err := deploys.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: kube.LegacyAuthName, Namespace: liqolegacy.Namespace},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "auth-service", Image: "ghcr.io/liqotech/auth-service:" + liqolegacy.LiqoVersion, Args: args}}},
			},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, ignoreNotFound(deploys.Delete(ctx, kube.LegacyAuthName, metav1.DeleteOptions{})))
		require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(deploys.List, deploys.Watch, kube.ByName(kube.LegacyAuthName)), &appsv1.Deployment{}, "Deployment "+kube.LegacyAuthName))
	})
}

// A consumer running Liqo v1 (core.liqo.io ForeignClusters) cannot
// authenticate with a 0.x provider: both flows refuse it at detection with
// the line that says why and what to do, and write nothing on either side.
// It runs on a control plane of its own: the CRD it installs would make the
// shared lab's clusters v1 for the other tests.
func TestLegacyFlowRefusesV1Consumer(t *testing.T) {
	ctx := legacyContext(t)
	provider := testLab.Clusters(t)[0]
	startProvider(t, ctx, provider)
	prov, err := kube.NewCluster(provider.Config, liqolegacy.Namespace)
	require.NoError(t, err)

	startCtx, cancel := context.WithTimeout(ctx, labtest.StartTimeout)
	defer cancel()
	lc, err := lab.StartCluster(startCtx, "liqo-v1", lab.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lc.Stop()) })
	v1, err := kube.NewCluster(lc.Config, "")
	require.NoError(t, err)
	createV1ForeignClusterCRD(t, ctx, v1)

	info, err := flows.GeneratePeerInfo(ctx, prov, "", nil)
	require.NoError(t, err)
	providerBefore, consumerBefore := providerObjects(t, ctx, prov), providerObjects(t, ctx, v1)
	_, err = flows.ApplyPeerInfo(ctx, v1, info, legacyOptions(), nil)
	require.Error(t, err)
	t.Logf("manual: %v", err)
	assert.Contains(t, err.Error(), "runs Liqo v1")
	assert.Contains(t, err.Error(), "authenticate differently")
	assert.NotContains(t, err.Error(), "\n")
	_, err = flows.AuthenticateLegacy(ctx, v1, prov, "", legacyOptions(), nil)
	require.Error(t, err)
	t.Logf("automated: %v", err)
	assert.Contains(t, err.Error(), "authenticate differently")
	assert.Equal(t, providerBefore, providerObjects(t, ctx, prov), "nothing written on the provider")
	assert.Equal(t, consumerBefore, providerObjects(t, ctx, v1), "nothing written on the consumer")
}

// createV1ForeignClusterCRD makes c serve Liqo v1's ForeignClusters
// (core.liqo.io/v1beta1), which is what tells Liqo v1 apart, and waits
// until discovery says so.
func createV1ForeignClusterCRD(t *testing.T, ctx context.Context, c *kube.Cluster) {
	t.Helper()
	crd := &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "foreignclusters.core.liqo.io"},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "core.liqo.io", Scope: apiextv1.ClusterScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "foreignclusters", Kind: "ForeignCluster"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object"}}}},
		},
	}
	crds := c.APIExt.ApiextensionsV1().CustomResourceDefinitions()
	_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = kube.WaitFor(ctx, kube.ListWatch(crds.List, crds.Watch, kube.ByName(crd.Name)), "CRD "+crd.Name,
		func(crd *apiextv1.CustomResourceDefinition) (bool, error) {
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
	require.NoError(t, err)
	// Discovery has no watch: an established CRD may reach it a moment later.
	require.Eventually(t, func() bool {
		r, err := c.DetectRelease(ctx)
		require.NoError(t, err)
		return r.Generation == kube.GenerationV1
	}, 10*time.Second, 50*time.Millisecond, "discovery never served core.liqo.io/v1beta1 foreignclusters")
}

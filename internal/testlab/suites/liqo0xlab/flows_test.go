//go:build cluster

package liqo0xlab_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
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

// liqo0xOptions are the options the tests share: the lab's auth servers
// have the chart's self-signed certificate without SAN.
func liqo0xOptions() liqo0x.Options {
	return liqo0x.Options{InsecureSkipTLSVerify: true, StepTimeout: time.Minute}
}

// startProvider starts the provider's auth server: its lab cluster and
// the client the flows use on it.
func startProvider(t *testing.T, ctx context.Context) (*lab.Cluster, *kube.Cluster) {
	t.Helper()
	provider := testLab.Clusters(t)[0]
	realliqo0x.StartAuthServer(t, ctx, provider, providerID, providerName)
	prov, err := kube.NewCluster(provider.Config, realliqo0x.Namespace)
	require.NoError(t, err)
	return provider, prov
}

// toolPair is a 0.x provider with its real auth server and the "plain"
// cluster, prepared by init, where this tool is the 0.x consumer; what an
// authentication leaves is removed on both sides when the test ends.
type toolPair struct {
	provider, consumer *kube.Cluster
	server             *realliqo0x.AuthServer
	consumerID         string
}

func startToolPair(t *testing.T, ctx context.Context) *toolPair {
	t.Helper()
	cs := testLab.Clusters(t)
	srv := realliqo0x.StartAuthServer(t, ctx, cs[0], providerID, providerName)
	prov, err := kube.NewCluster(cs[0].Config, realliqo0x.Namespace)
	require.NoError(t, err)
	cons, err := kube.NewCluster(cs[2].Config, "")
	require.NoError(t, err)
	initRes, err := cons.Init(ctx, kube.InitOptions{})
	require.NoError(t, err)
	p := &toolPair{provider: prov, consumer: cons, server: srv, consumerID: initRes.ClusterID}
	t.Cleanup(func() { realliqo0x.CleanupPair(t, prov.Config, cons.Config, providerID, p.consumerID) })
	require.Empty(t, realliqo0x.TenantNamespaces(t, ctx, prov.Config, p.consumerID), "the provider must start without a tenant namespace for %s", p.consumerID)
	_, err = kliqo0x.On(cons).KubeconfigSecret(ctx, providerID)
	require.True(t, kube.IsNotFound(err), "the consumer must start without an identity for the provider: %v", err)
	return p
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

// authenticateTimed runs the automated flow and logs how long it took
// (liqoctl peer out-of-band: 1.3–1.7 s).
func authenticateTimed(t *testing.T, ctx context.Context, consumer, provider *kube.Cluster, what string) (*liqo0x.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	start := time.Now()
	res, err := liqo0x.Authenticate(ctx, consumer, provider, "", liqo0xOptions(), rec.sink)
	require.NoError(t, err)
	t.Logf("timing: AuthenticateLiqo0x (%s) → authenticated in %s", what, time.Since(start).Round(time.Millisecond))
	return res, rec
}

// The automated flow between two clusters running Liqo 0.x: the consumer's
// own Liqo authenticates; verify shows the identity; a second run reports
// the identity already held and sends nothing, even with a wrong token,
// which then never replaces the stored one.
func TestLiqo0xFlowAutomatedBetweenLiqoClusters(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)

	res, rec := authenticateTimed(t, ctx, p.consumer, p.provider, "Liqo 0.x consumer")
	assert.False(t, res.ByTool, "the consumer's own Liqo authenticated")
	assert.False(t, res.AlreadyAuthenticated)
	assert.Equal(t, consumerID, res.ConsumerID)
	assert.Equal(t, providerID, res.ProviderID)
	assert.Regexp(t, `^liqo-tenant-`+providerName+`-[0-9a-f]{6}/liqo-identity-`, res.IdentitySecret)
	assert.Equal(t, consumerID, res.User)
	assert.Contains(t, res.Groups, "liqo.io")
	assert.Nil(t, res.Kubeconfig, "the identity stays in Liqo's Secret")
	assert.WithinDuration(t, time.Now().AddDate(1, 0, 0), res.NotAfter, 48*time.Hour)
	assert.Regexp(t, `^liqo-tenant-`+consumerName+`-[0-9a-f]{6}$`, strings.Join(realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID), ","),
		"one tenant namespace on the provider")
	rec.requireNoToken(t, p.info.Token)

	v, err := flows.Verify(ctx, p.consumer, providerID, nil)
	require.NoError(t, err)
	assert.Equal(t, consumerID, v.User)
	assert.Contains(t, v.Groups, "liqo.io")
	assert.Len(t, v.Allowed, 14, "liqo-remote-peering-basic's ResourceRequests checked, granted: %v", v.Denied)
	assert.Len(t, v.Denied, 4, "and nothing more: %v", v.Allowed)
	assert.Equal(t, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID)[0], v.TenantNamespace)

	again := &recorder{}
	res2, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), again.sink)
	require.NoError(t, err)
	assert.True(t, res2.AlreadyAuthenticated)
	assert.Equal(t, res.IdentitySecret, res2.IdentitySecret)
	assert.True(t, again.has("does NOT send the token"), "the run says the token was not sent: %q", again.texts())

	tokenSecret := func() *corev1.Secret {
		s, err := p.consumer.Kube.CoreV1().Secrets(realliqo0x.Namespace).Get(ctx, kliqo0x.RemoteTokenPrefix+providerID, metav1.GetOptions{})
		require.NoError(t, err)
		return s
	}
	before := tokenSecret()
	wrong := *p.info
	wrong.Token = realliqo0x.WrongToken(t)
	withWrong := &recorder{}
	res3, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, &wrong, liqo0xOptions(), withWrong.sink)
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
func TestLiqo0xFlowManualBetweenLiqoClusters(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)

	rec := &recorder{}
	info, err := liqo0x.GeneratePeerInfo(ctx, p.provider, "", rec.sink)
	require.NoError(t, err)
	assert.Equal(t, p.info.ClusterID, info.ClusterID)
	assert.Equal(t, p.info.AuthURL, info.AuthURL)
	assert.False(t, info.AuthenticationDisabled)
	line, err := artifact.EncodePeerInfo(info)
	require.NoError(t, err)
	assert.NotContains(t, line, "\n")
	assert.NotContains(t, line, info.Token)
	parsed, err := artifact.ParsePeerInfo([]byte("  " + line + "\n"))
	require.NoError(t, err)
	assert.Equal(t, info, parsed)

	res, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, parsed, liqo0xOptions(), rec.sink)
	require.NoError(t, err)
	assert.True(t, rec.has("AuthenticationStatus Established"), "%q", rec.texts())
	assert.False(t, res.ByTool)
	assert.False(t, res.AlreadyAuthenticated)
	assert.Equal(t, consumerID, res.User)
	assert.Contains(t, res.Groups, "liqo.io")
	assert.Len(t, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID), 1)
	rec.requireNoToken(t, info.Token)
}

// This tool as the 0.x consumer of a cluster prepared by init, against the
// real auth server: automated, re-run, manual, and a run whose answer was
// lost after the provider issued the certificate.
func TestLiqo0xFlowToolConsumer(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)

	res, rec := authenticateTimed(t, ctx, p.consumer, p.provider, "this tool as the consumer")
	assert.True(t, res.ByTool)
	assert.False(t, res.AlreadyAuthenticated)
	assert.False(t, res.TLSVerified, "the harness certificate has no SAN")
	assert.True(t, rec.has("TLS certificate not verified"), "the run says TLS verification was skipped: %q", rec.texts())
	assert.Equal(t, kube.TenantNamespaceName(providerID)+"/"+kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID)), res.IdentitySecret)
	assert.Equal(t, p.consumerID, res.User)
	assert.Contains(t, res.Groups, "liqo.io")
	require.NotEmpty(t, res.Kubeconfig)
	user, groups := realliqo0x.WhoAmI(t, ctx, realliqo0x.IdentityConfig(t, res.Kubeconfig, p.provider.Config))
	assert.Equal(t, p.consumerID, user, "the kubeconfig authenticates as the consumer's cluster ID")
	assert.Contains(t, groups, "liqo.io")
	assert.Len(t, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, p.consumerID), 1)
	token, err := realliqo0x.AuthToken(ctx, p.provider.Config)
	require.NoError(t, err)
	rec.requireNoToken(t, token)

	v, err := flows.Verify(ctx, p.consumer, providerID, nil)
	require.NoError(t, err)
	assert.Equal(t, p.consumerID, v.User)
	assert.Len(t, v.Allowed, 14, "this tool's 0.x identity is checked as one: %v", v.Denied)

	again := &recorder{}
	res2, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), again.sink)
	require.NoError(t, err)
	assert.True(t, res2.AlreadyAuthenticated)
	assert.True(t, res2.ByTool)
	assert.True(t, again.has("nothing is sent"), "%q", again.texts())
	assert.Equal(t, 1, csrsOf(t, ctx, p.provider, p.consumerID), "no new identity")

	t.Run("manual", func(t *testing.T) {
		realliqo0x.CleanupPair(t, p.provider.Config, p.consumer.Config, providerID, p.consumerID)
		rec := &recorder{}
		info, err := liqo0x.GeneratePeerInfo(ctx, p.provider, "", rec.sink)
		require.NoError(t, err)
		line, err := artifact.EncodePeerInfo(info)
		require.NoError(t, err)
		parsed, err := artifact.ParsePeerInfo([]byte(line))
		require.NoError(t, err)
		res, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, parsed, liqo0xOptions(), rec.sink)
		require.NoError(t, err)
		assert.True(t, res.ByTool)
		assert.False(t, res.AlreadyAuthenticated)
		user, groups := realliqo0x.WhoAmI(t, ctx, realliqo0x.IdentityConfig(t, res.Kubeconfig, p.provider.Config))
		assert.Equal(t, p.consumerID, user)
		assert.Contains(t, groups, "liqo.io")
		rec.requireNoToken(t, info.Token)
	})

	t.Run("interrupted after the request was sent", func(t *testing.T) {
		realliqo0x.CleanupPair(t, p.provider.Config, p.consumer.Config, providerID, p.consumerID)
		// An earlier run sent its pending CSR, and the answer was lost.
		info, lost := loseAnswer(t, ctx, p)

		o := liqo0xOptions()
		o.Provider = p.provider
		rec := &recorder{}
		res, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, info, o, rec.sink)
		require.NoError(t, err)
		assert.True(t, rec.has("completing with it"), "%q", rec.texts())
		cfg := realliqo0x.IdentityConfig(t, res.Kubeconfig, p.provider.Config)
		assert.Equal(t, strings.TrimSpace(string(lost.Certificate)), strings.TrimSpace(string(cfg.CertData)), "the certificate the provider issued to the lost request")
		user, _ := realliqo0x.WhoAmI(t, ctx, cfg)
		assert.Equal(t, p.consumerID, user)
		assert.Equal(t, []string{lost.Namespace}, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, p.consumerID))
		assert.Equal(t, 1, csrsOf(t, ctx, p.provider, p.consumerID), "no new identity")
		_, err = p.consumer.Kube.CoreV1().Secrets(kube.TenantNamespaceName(providerID)).Get(ctx, kliqo0x.PendingSecretPrefix+providerID, metav1.GetOptions{})
		assert.True(t, kube.IsNotFound(err), "the pending request is gone: %v", err)
	})
}

// A wrong token, on both consumer paths: one line naming the cause within
// seconds, never the token, and nothing on the provider (nor, with this
// tool as the consumer, on the consumer).
func TestLiqo0xFlowWrongToken(t *testing.T) {
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
		ctx := liqo0xContext(t)
		p := startLiqo0xPair(t, ctx)
		wrong := *p.info
		wrong.Token = realliqo0x.WrongToken(t)
		rec := &recorder{}
		start := time.Now()
		_, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, &wrong, liqo0xOptions(), rec.sink)
		check(t, err, time.Since(start), wrong.Token)
		rec.requireNoToken(t, wrong.Token)
		assert.Empty(t, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, consumerID), "no tenant namespace on the provider")
		assert.Zero(t, csrsOf(t, ctx, p.provider, consumerID), "no CSR on the provider")
		_, err = p.consumer.Kube.CoreV1().Secrets(realliqo0x.Namespace).Get(ctx, kliqo0x.RemoteTokenPrefix+providerID, metav1.GetOptions{})
		assert.True(t, kube.IsNotFound(err), "no token Secret on the consumer: %v", err)
		_, err = dynamicFC(t, ctx, p.consumer)
		assert.True(t, kube.IsNotFound(err), "no ForeignCluster on the consumer: %v", err)
	})

	t.Run("tool consumer", func(t *testing.T) {
		ctx := liqo0xContext(t)
		p := startToolPair(t, ctx)
		info, err := liqo0x.GeneratePeerInfo(ctx, p.provider, "", nil)
		require.NoError(t, err)
		info.Token = realliqo0x.WrongToken(t)
		providerBefore, consumerBefore := providerObjects(t, ctx, p.provider), providerObjects(t, ctx, p.consumer)
		rec := &recorder{}
		start := time.Now()
		_, err = liqo0x.ApplyPeerInfo(ctx, p.consumer, info, liqo0xOptions(), rec.sink)
		check(t, err, time.Since(start), info.Token)
		rec.requireNoToken(t, info.Token)
		assert.Equal(t, providerBefore, providerObjects(t, ctx, p.provider), "nothing written on the provider")
		assert.Equal(t, consumerBefore, providerObjects(t, ctx, p.consumer), "nothing written on the consumer")
	})
}

// The provider issues one identity per cluster ID: once the consumer lost
// it, a new request is refused with the provider's object named; with the
// provider at hand and --reissue the tool deletes it and gets a new one.
func TestLiqo0xFlowSecondRequestAndReissue(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)
	first, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), nil)
	require.NoError(t, err)
	firstCert := realliqo0x.IdentityConfig(t, first.Kubeconfig, p.provider.Config).CertData
	issuedNS := realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, p.consumerID)
	require.Len(t, issuedNS, 1)

	// The consumer loses its identity; the provider keeps its record.
	deleteNamespace(t, ctx, p.consumer, kube.TenantNamespaceName(providerID))
	info, err := liqo0x.GeneratePeerInfo(ctx, p.provider, "", nil)
	require.NoError(t, err)

	_, err = liqo0x.ApplyPeerInfo(ctx, p.consumer, info, liqo0xOptions(), nil)
	require.Error(t, err, "manual mode: refused")
	t.Logf("manual mode: %v", err)
	assert.Contains(t, err.Error(), "already issued")
	assert.Contains(t, err.Error(), "liqo-remote-certificate")
	assert.Contains(t, err.Error(), "kubectl get ns -l "+kliqo0x.ClusterIDLabel+"="+p.consumerID, "the provider's namespace is found by its label")
	assert.NotContains(t, err.Error(), info.Token)

	_, err = liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), nil)
	require.Error(t, err, "automated mode without --reissue: refused")
	t.Logf("automated mode: %v", err)
	assert.Contains(t, err.Error(), "-n "+issuedNS[0]+" delete secret liqo-remote-certificate")
	assert.Contains(t, err.Error(), "--reissue")
	assert.Equal(t, issuedNS, realliqo0x.TenantNamespaces(t, ctx, p.provider.Config, p.consumerID), "nothing deleted without --reissue")

	o := liqo0xOptions()
	o.Reissue = true
	rec := &recorder{}
	res, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, rec.sink)
	require.NoError(t, err)
	assert.True(t, rec.has("--reissue"), "the run says it deleted the old identity: %q", rec.texts())
	cfg := realliqo0x.IdentityConfig(t, res.Kubeconfig, p.provider.Config)
	assert.NotEqual(t, firstCert, cfg.CertData, "a new certificate")
	_, _, issued, err := kliqo0x.On(p.provider).IssuedCertificate(ctx, p.consumerID)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(string(issued)), strings.TrimSpace(string(cfg.CertData)))
	user, _ := realliqo0x.WhoAmI(t, ctx, cfg)
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
func TestLiqo0xFlowAuthenticationDisabled(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)
	cs := testLab.Clusters(t)
	open := realliqo0x.StartOpenAuthServer(t, cs[0], providerID, providerName)
	realliqo0x.CreateAuthDeployment(t, ctx, p.provider.Config, "--enable-authentication=false")

	rec := &recorder{}
	info, err := liqo0x.GeneratePeerInfo(ctx, p.provider, open.URL, rec.sink)
	require.NoError(t, err)
	assert.True(t, info.AuthenticationDisabled)
	require.NotEmpty(t, rec.warnings(liqo0x.ReasonAuthenticationDisabled), "a Warning: %q", rec.texts())
	assert.Contains(t, rec.warnings(liqo0x.ReasonAuthenticationDisabled)[0].Message, open.URL)

	applied := &recorder{}
	res, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, info, liqo0xOptions(), applied.sink)
	require.NoError(t, err)
	assert.True(t, res.AuthenticationDisabled)
	assert.NotEmpty(t, applied.warnings(liqo0x.ReasonAuthenticationDisabled), "applying warns too: %q", applied.texts())
}

// Without a liqo-auth Deployment to read (lab clusters run the auth server
// as a process), the peer info asks the auth server itself, from here and
// writing nothing: one started with authentication disabled is warned
// about; the normal one is not; one that does not answer gets a note that
// it could not be checked, and no warning.
func TestLiqo0xPeerInfoProbesAuthServerWithoutDeployment(t *testing.T) {
	ctx := liqo0xContext(t)
	provider, prov := startProvider(t, ctx)
	_, err := prov.Kube.AppsV1().Deployments(realliqo0x.Namespace).Get(ctx, kube.Liqo0xAuthName, metav1.GetOptions{})
	require.True(t, kube.IsNotFound(err), "no liqo-auth Deployment: %v", err)
	open := realliqo0x.StartOpenAuthServer(t, provider, providerID, providerName)
	before := providerObjects(t, ctx, prov)

	for _, c := range []struct {
		name, authURL     string
		disabled, checked bool
	}{
		{name: "authentication disabled", authURL: open.URL, disabled: true, checked: true},
		{name: "authentication enabled", checked: true},
		{name: "auth server not answering", authURL: "https://" + realliqo0x.FreeAddress(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			info, err := liqo0x.GeneratePeerInfo(ctx, prov, c.authURL, rec.sink)
			require.NoError(t, err)
			assert.Equal(t, c.disabled, info.AuthenticationDisabled)
			assert.Equal(t, !c.checked, info.AuthenticationUnknown)
			warnings := rec.warnings(liqo0x.ReasonAuthenticationDisabled)
			if c.disabled {
				require.Len(t, warnings, 1, "warned once: %q", rec.texts())
				assert.Contains(t, warnings[0].Message, open.URL)
			} else {
				assert.Empty(t, warnings)
			}
			assert.Equal(t, !c.checked, rec.has("Could not check whether authentication is enabled"), "%q", rec.texts())
			rec.requireNoToken(t, info.Token)
		})
	}
	assert.Equal(t, before, providerObjects(t, ctx, prov), "the probe wrote nothing on the provider")
}

// A consumer running Liqo v1 (core.liqo.io ForeignClusters) cannot
// authenticate with a 0.x provider: both flows refuse it at detection with
// the line that says why and what to do, and write nothing on either side.
// It runs on a control plane of its own: the CRD it installs would make the
// shared lab's clusters v1 for the other tests.
func TestLiqo0xFlowRefusesV1Consumer(t *testing.T) {
	ctx := liqo0xContext(t)
	_, prov := startProvider(t, ctx)

	startCtx, cancel := context.WithTimeout(ctx, labtest.StartTimeout)
	defer cancel()
	lc, err := lab.StartCluster(startCtx, "liqo-v1", lab.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lc.Stop()) })
	v1, err := kube.NewCluster(lc.Config, "")
	require.NoError(t, err)
	realliqo0x.ServeLiqoV1(t, ctx, v1.Config)

	info, err := liqo0x.GeneratePeerInfo(ctx, prov, "", nil)
	require.NoError(t, err)
	providerBefore, consumerBefore := providerObjects(t, ctx, prov), providerObjects(t, ctx, v1)
	_, err = liqo0x.ApplyPeerInfo(ctx, v1, info, liqo0xOptions(), nil)
	require.Error(t, err)
	t.Logf("manual: %v", err)
	assert.Contains(t, err.Error(), "runs Liqo v1")
	assert.Contains(t, err.Error(), "authenticate differently")
	assert.NotContains(t, err.Error(), "\n")
	_, err = liqo0x.Authenticate(ctx, v1, prov, "", liqo0xOptions(), nil)
	require.Error(t, err)
	t.Logf("automated: %v", err)
	assert.Contains(t, err.Error(), "authenticate differently")
	assert.Equal(t, providerBefore, providerObjects(t, ctx, prov), "nothing written on the provider")
	assert.Equal(t, consumerBefore, providerObjects(t, ctx, v1), "nothing written on the consumer")
}

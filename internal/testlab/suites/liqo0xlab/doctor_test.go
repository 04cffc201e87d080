//go:build cluster

package liqo0xlab_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// doctor's Liqo 0.x traps, each provoked for real on a Liqo v0.10 pair:
// the check's ID, cause and fix, then the fix run and the check passing.

// The fixes doctor prints for a consumer that is this cluster.
const (
	reissueFix      = "liqo-auth-tui authenticate --remote-kubeconfig <provider's kubeconfig> --reissue"
	copyPeerInfoFix = "liqo-auth-tui generate peer-info --output-file peer-info --kubeconfig <provider's kubeconfig> && liqo-auth-tui apply peer-info -f peer-info"
)

// liqo0xChecks runs doctor on c and returns its Liqo 0.x checks.
func liqo0xChecks(t *testing.T, ctx context.Context, c *kube.Cluster, o doctor.Options) []doctor.Check {
	t.Helper()
	diag, err := doctor.Run(ctx, c, o)
	require.NoError(t, err)
	var out []doctor.Check
	for _, check := range diag.Checks {
		if strings.HasPrefix(check.ID, "liqo0x-") {
			out = append(out, check)
		}
	}
	return out
}

// checkOf is the check id of scope; it fails the test when there is none.
func checkOf(t *testing.T, checks []doctor.Check, id string, scope handshake.Scope) doctor.Check {
	t.Helper()
	for _, c := range checks {
		if c.ID == id && c.Scope == scope {
			return c
		}
	}
	require.Failf(t, "no check "+id, "scope %s, checks: %+v", scope, checks)
	return doctor.Check{}
}

// requireAllPassed fails unless every check passed and the ids are among
// them (in any scope).
func requireAllPassed(t *testing.T, checks []doctor.Check, ids ...string) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range checks {
		assert.True(t, c.OK, "%s (%s) failed: %s; fix: %s", c.ID, c.Scope, c.Cause, c.Fix)
		seen[c.ID] = true
	}
	for _, id := range ids {
		assert.True(t, seen[id], "no check %s: %+v", id, checks)
	}
}

// The consumer's identity Secret is lost while its ForeignCluster still
// says Established (Liqo v0.10 keeps it while each new request is
// refused): doctor names it on the consumer, and from the provider with the
// consumer read; the reissue it prints gets a new identity. With a clock
// past 2/3 of the certificate's validity, or past its end, the identity
// check says Liqo 0.x never renews it.
func TestDoctorLiqo0xIdentityLostWhileEstablished(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)
	o := liqo0xOptions()
	_, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.NoError(t, err)
	both := doctor.Options{RemoteID: providerID, Remote: p.provider}
	requireAllPassed(t, liqo0xChecks(t, ctx, p.consumer, both),
		"liqo0x-authentication-enabled", "liqo0x-identity", "liqo0x-token", "liqo0x-one-identity")
	checkOf(t, liqo0xChecks(t, ctx, p.consumer, both), "liqo0x-issued-certificate", handshake.Remote)

	id, err := kliqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(id.Namespace).Delete(ctx, id.Name, metav1.DeleteOptions{}))

	checks := liqo0xChecks(t, ctx, p.consumer, doctor.Options{RemoteID: providerID})
	c := checkOf(t, checks, "liqo0x-identity", handshake.Local)
	t.Logf("%s: %s; fix: %s", c.ID, c.Cause, c.Fix)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "says authentication Established but this cluster holds no liqo-identity-* Secret for "+providerID)
	assert.Contains(t, c.Cause, "delete Secret liqo-remote-certificate it issued to "+consumerID)
	assert.Equal(t, reissueFix, c.Fix)
	for _, other := range checks {
		assert.NotEqual(t, "liqo0x-one-identity", other.ID, "one cause, one failed check")
	}

	// From the provider, with the consumer read: the consumer's check,
	// its fix run there.
	checks = liqo0xChecks(t, ctx, p.provider, doctor.Options{RemoteID: consumerID, Remote: p.consumer})
	c = checkOf(t, checks, "liqo0x-identity", handshake.Remote)
	assert.False(t, c.OK)
	assert.Equal(t, reissueFix+" --kubeconfig <consumer's kubeconfig>", c.Fix)
	for _, other := range checks {
		assert.NotEqual(t, "liqo0x-issued-certificate", other.ID, "the identity check says why the consumer holds none")
	}

	// The fix: `authenticate --remote-kubeconfig … --reissue` is this flow.
	o.Reissue = true
	_, err = liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.NoError(t, err)
	checks = liqo0xChecks(t, ctx, p.consumer, both)
	requireAllPassed(t, checks, "liqo0x-identity", "liqo0x-token", "liqo0x-one-identity")
	assert.True(t, checkOf(t, checks, "liqo0x-issued-certificate", handshake.Remote).OK)

	again, err := kliqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	deleteFix := "kubectl -n " + again.Namespace + " delete secret " + again.Name + " && " + reissueFix
	for _, at := range []struct {
		name  string
		now   time.Time
		cause string
	}{
		{"past 2/3 of its validity", kube.RenewalTime(again.NotBefore, again.NotAfter).Add(time.Minute), "past 2/3 of its validity"},
		{"expired", again.NotAfter.Add(time.Minute), "expired at " + again.NotAfter.UTC().Format(time.RFC3339)},
	} {
		now := at.now
		c := checkOf(t, liqo0xChecks(t, ctx, p.consumer, doctor.Options{RemoteID: providerID, Now: func() time.Time { return now }}),
			"liqo0x-identity", handshake.Local)
		assert.False(t, c.OK, at.name)
		assert.Contains(t, c.Cause, at.cause)
		assert.Contains(t, c.Cause, "Liqo 0.x never renews it")
		assert.Equal(t, deleteFix, c.Fix)
	}
}

// The provider re-creates its auth-token Secret after the consumer's
// admin copied the peer info: the consumer's Liqo is refused with the old
// token. doctor says so without printing the token, and the copy it
// prints authenticates.
func TestDoctorLiqo0xTokenChanged(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)
	stale := p.info.Token
	fresh := recreateAuthToken(t, ctx, p.provider, stale)
	require.NotEqual(t, stale, fresh)

	// What `liqoctl peer out-of-band` writes with the copied token.
	_, err := kliqo0x.On(p.consumer).ApplyPeer(ctx, p.info, kliqo0x.PeerOptions{})
	require.NoError(t, err)
	_, err = kliqo0x.On(p.consumer).WaitAuthenticated(ctx, providerID)
	var failure *kliqo0x.AuthFailure
	require.True(t, errors.As(err, &failure), "a refusal: %v", err)
	require.Equal(t, kliqo0x.WrongToken, failure.Refusal)

	checks := liqo0xChecks(t, ctx, p.consumer, doctor.Options{RemoteID: providerID})
	c := checkOf(t, checks, "liqo0x-token", handshake.Local)
	t.Logf("%s: %s; fix: %s", c.ID, c.Cause, c.Fix)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "its auth-token Secret was re-created since the peer info was copied")
	assert.Contains(t, c.Cause, "invalid token")
	assert.NotContains(t, c.Cause, stale)
	assert.Equal(t, copyPeerInfoFix, c.Fix)
	assert.True(t, checkOf(t, checks, "liqo0x-one-identity", handshake.Local).OK)

	// The fix: generate peer-info on the provider, apply it here.
	info, err := liqo0x.GeneratePeerInfo(ctx, p.provider, "", nil)
	require.NoError(t, err)
	require.Equal(t, fresh, info.Token)
	_, err = liqo0x.ApplyPeerInfo(ctx, p.consumer, info, liqo0xOptions(), nil)
	require.NoError(t, err)
	requireAllPassed(t, liqo0xChecks(t, ctx, p.consumer, doctor.Options{RemoteID: providerID}), "liqo0x-token", "liqo0x-identity")
}

// recreateAuthToken deletes the provider's auth-token Secret and returns
// the new token its auth server makes.
func recreateAuthToken(t *testing.T, ctx context.Context, provider *kube.Cluster, old string) string {
	t.Helper()
	secrets := provider.Kube.CoreV1().Secrets(realliqo0x.Namespace)
	require.NoError(t, secrets.Delete(ctx, kliqo0x.AuthTokenSecretName, metav1.DeleteOptions{}))
	s, err := kube.WaitFor(ctx, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(kliqo0x.AuthTokenSecretName)), "a new auth-token",
		func(s *corev1.Secret) (bool, error) {
			token := string(s.Data[kliqo0x.AuthTokenField])
			return token != "" && token != old, nil
		})
	require.NoError(t, err)
	return string(s.Data[kliqo0x.AuthTokenField])
}

// A consumer re-installed with the same cluster ID (its ForeignCluster and
// identity gone) asks again: the provider, which issues one identity per
// cluster ID, refuses it. doctor says so, and the reissue it prints gets
// a new identity, which the provider's issued certificate then matches.
func TestDoctorLiqo0xOneIdentityPerClusterID(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)
	o := liqo0xOptions()
	_, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.NoError(t, err)

	remove, _, err := kliqo0x.On(p.consumer).ConsumerLeftovers(ctx, providerID)
	require.NoError(t, err)
	_, err = kliqo0x.On(p.consumer).DeleteObjects(ctx, remove)
	require.NoError(t, err)
	_, err = kliqo0x.On(p.consumer).ApplyPeer(ctx, p.info, kliqo0x.PeerOptions{})
	require.NoError(t, err)
	_, err = kliqo0x.On(p.consumer).WaitAuthenticated(ctx, providerID)
	var failure *kliqo0x.AuthFailure
	require.True(t, errors.As(err, &failure), "a refusal: %v", err)
	require.Equal(t, kliqo0x.AlreadyIssued, failure.Refusal)

	both := doctor.Options{RemoteID: providerID, Remote: p.provider}
	checks := liqo0xChecks(t, ctx, p.consumer, both)
	c := checkOf(t, checks, "liqo0x-one-identity", handshake.Local)
	t.Logf("%s: %s; fix: %s", c.ID, c.Cause, c.Fix)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "already issued the one identity of cluster ID "+consumerID)
	assert.Contains(t, c.Cause, "liqo-remote-certificate")
	assert.Contains(t, c.Cause, "does not match", "Liqo's condition quoted")
	assert.Equal(t, reissueFix, c.Fix)
	assert.True(t, checkOf(t, checks, "liqo0x-token", handshake.Local).OK)
	for _, other := range checks {
		assert.NotEqual(t, "liqo0x-issued-certificate", other.ID, "the refusal check says why the consumer holds none")
	}

	o.Reissue = true
	_, err = liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.NoError(t, err)
	checks = liqo0xChecks(t, ctx, p.consumer, both)
	requireAllPassed(t, checks, "liqo0x-one-identity", "liqo0x-identity", "liqo0x-token")
	assert.Contains(t, checkOf(t, checks, "liqo0x-issued-certificate", handshake.Remote).Detail, "the consumer holds it")
}

// This tool as the 0.x consumer loses its kubeconfig Secret: the provider
// keeps the one identity it issued, so the next request would be refused.
// Only both sides together show it: doctor on the provider with the
// consumer read says so, and the reissue it prints (run on the consumer)
// gets a new identity that the provider's certificate matches.
func TestDoctorLiqo0xIssuedButNotHeld(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)
	res, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", liqo0xOptions(), nil)
	require.NoError(t, err)
	fromProvider := doctor.Options{RemoteID: p.consumerID, Remote: p.consumer}
	checks := liqo0xChecks(t, ctx, p.provider, fromProvider)
	requireAllPassed(t, checks, "liqo0x-issued-certificate")
	checkOf(t, checks, "liqo0x-identity", handshake.Remote)

	ns, name, _ := strings.Cut(res.IdentitySecret, "/")
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{}))
	c := checkOf(t, liqo0xChecks(t, ctx, p.provider, fromProvider), "liqo0x-issued-certificate", handshake.Local)
	t.Logf("%s: %s; fix: %s", c.ID, c.Cause, c.Fix)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "issued the one identity of cluster ID "+p.consumerID)
	assert.Contains(t, c.Cause, "the consumer holds none")
	assert.Equal(t, reissueFix+" --kubeconfig <consumer's kubeconfig>", c.Fix)

	o := liqo0xOptions()
	o.Reissue = true
	_, err = liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.NoError(t, err)
	checks = liqo0xChecks(t, ctx, p.provider, fromProvider)
	requireAllPassed(t, checks, "liqo0x-issued-certificate")
	assert.Contains(t, checkOf(t, checks, "liqo0x-issued-certificate", handshake.Local).Detail, "the consumer holds it")
}

// A real Liqo v0.10 auth server run with --enable-authentication=false
// (the chart's auth.config.enableAuthentication=false) accepts any token:
// doctor on a consumer whose ForeignCluster uses it says so (only the
// provider's admin can fix it), having asked the server with a random
// token and written nothing. On the provider, its liqo-auth Deployment's
// flag is read, and the fix is the chart's value at the installed version;
// once the Deployment runs with authentication on, the check passes.
func TestDoctorLiqo0xAuthenticationDisabled(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)
	open := realliqo0x.StartOpenAuthServer(t, testLab.Clusters(t)[0], providerID, providerName)
	info := *p.info
	info.AuthURL = open.URL
	_, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, &info, liqo0xOptions(), nil)
	require.NoError(t, err)

	before := providerObjects(t, ctx, p.provider)
	// The provider's auth server: the remote side of the consumer.
	c := checkOf(t, liqo0xChecks(t, ctx, p.consumer, doctor.Options{RemoteID: providerID}), "liqo0x-authentication-enabled", handshake.Remote)
	t.Logf("%s: %s; fix: %s", c.ID, c.Cause, c.Fix)
	assert.False(t, c.OK)
	assert.Equal(t, handshake.AuthenticationDisabledWarning(open.URL)+
		"; the provider's admin restarts its auth server with --enable-authentication=true", c.Cause)
	assert.Empty(t, c.Fix, "only the provider's admin can")
	assert.Equal(t, before, providerObjects(t, ctx, p.provider), "the probe wrote nothing on the provider")

	// The provider's own auth server (the one its Service advertises)
	// checks tokens; lab clusters have no liqo-auth Deployment.
	fromProvider := doctor.Options{RemoteID: consumerID}
	c = checkOf(t, liqo0xChecks(t, ctx, p.provider, fromProvider), "liqo0x-authentication-enabled", handshake.Local)
	assert.True(t, c.OK, c.Cause)
	assert.Equal(t, "the auth server at "+p.info.AuthURL+" refused a random token", c.Detail)

	realliqo0x.CreateAuthDeployment(t, ctx, p.provider.Config, "--cluster-id="+providerID, "--enable-authentication=false")
	c = checkOf(t, liqo0xChecks(t, ctx, p.provider, fromProvider), "liqo0x-authentication-enabled", handshake.Local)
	assert.False(t, c.OK)
	assert.Contains(t, c.Cause, "authentication is DISABLED")
	assert.Equal(t, "helm upgrade liqo liqo --repo https://helm.liqo.io --namespace liqo --reuse-values --version "+realliqo0x.LiqoVersion+
		" --set auth.config.enableAuthentication=true", c.Fix)

	// What the helm upgrade renders: the flag turned on.
	deploys := p.provider.Kube.AppsV1().Deployments(realliqo0x.Namespace)
	d, err := deploys.Get(ctx, kube.Liqo0xAuthName, metav1.GetOptions{})
	require.NoError(t, err)
	d.Spec.Template.Spec.Containers[0].Args[1] = "--enable-authentication=true"
	_, err = deploys.Update(ctx, d, metav1.UpdateOptions{})
	require.NoError(t, err)
	c = checkOf(t, liqo0xChecks(t, ctx, p.provider, fromProvider), "liqo0x-authentication-enabled", handshake.Local)
	assert.True(t, c.OK, c.Cause)
	assert.Equal(t, "Deployment liqo-auth runs with authentication enabled", c.Detail)
}

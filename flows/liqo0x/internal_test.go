package liqo0x

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// Only a Liqo 0.x provider from v0.3 on makes peer info; a restricted user
// is let through for the lookup itself to explain.
func TestRequireProvider(t *testing.T) {
	assert.NoError(t, requireProvider(kube.LiqoRelease{Flavor: kube.FlavorLiqo0x, Line: peerinfo.V04}))
	assert.NoError(t, requireProvider(kube.LiqoRelease{Flavor: kube.FlavorUnknown}))
	assert.ErrorContains(t, requireProvider(kube.LiqoRelease{Flavor: kube.FlavorV1}), "create nonce")
	assert.ErrorContains(t, requireProvider(kube.LiqoRelease{Flavor: kube.FlavorNone}), "not Liqo 0.x")
	assert.ErrorContains(t, requireProvider(kube.LiqoRelease{Flavor: kube.FlavorLiqo0x, Line: peerinfo.V02}), "upgrade")
}

// A wrong token is a classified refusal; authentication disabled is a
// Warning event that never carries the token.
func TestTokenCheckResult(t *testing.T) {
	info := &peerinfo.Info{ClusterID: "p1", AuthURL: "https://a:1", Token: strings.Repeat("ab", 64)}
	res := &Result{}
	var events []handshake.Event
	sink := func(ev handshake.Event) { events = append(events, ev) }

	err := tokenCheckResult(kliqo0x.TokenRefused, info, res, sink)
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, kliqo0x.WrongToken, refused.Refusal)
	assert.Contains(t, err.Error(), "nothing was written")

	require.NoError(t, tokenCheckResult(kliqo0x.TokenAccepted, info, res, sink))
	assert.Empty(t, events)
	require.NoError(t, tokenCheckResult(kliqo0x.TokenAuthenticationDisabled, info, res, sink))
	assert.True(t, res.AuthenticationDisabled)
	require.Len(t, events, 1)
	assert.True(t, events[0].Warning)
	assert.Equal(t, ReasonAuthenticationDisabled, events[0].Reason)
	assert.Contains(t, events[0].Message, "anyone who reaches https://a:1 can peer")
	assert.NotContains(t, events[0].Message, info.Token)
}

// Without the provider's kubeconfig the refusal names the object its admin
// deletes, in the namespace found by its label (its name depends on the
// provider's line and on the name it was given), as one command to copy,
// and how to let the tool do it.
func TestAlreadyIssuedError(t *testing.T) {
	err := alreadyIssuedError(context.Background(), Options{}, "c1")
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, kliqo0x.AlreadyIssued, refused.Refusal)
	assert.Contains(t, err.Error(), "`kubectl -n \"$(kubectl get ns -l discovery.liqo.io/cluster-id=c1 -o jsonpath='{.items[0].metadata.name}')\" delete secret liqo-remote-certificate`")
	assert.Contains(t, err.Error(), "--reissue")
	assert.NotContains(t, err.Error(), "\n")
}

func TestIsUnreachable(t *testing.T) {
	assert.True(t, isUnreachable(&kliqo0x.AuthError{Refusal: kliqo0x.Unreachable}))
	assert.True(t, isUnreachable(errors.Join(errors.New("x"), &kliqo0x.AuthError{Status: 0})))
	assert.False(t, isUnreachable(&kliqo0x.AuthError{Status: 401, Refusal: kliqo0x.WrongToken}))
	assert.False(t, isUnreachable(errors.New("other")))
}

// One-sided needs the other side's ID; nothing is asked of a cluster
// before that.
func TestUnauthenticateNeedsASide(t *testing.T) {
	_, err := Unauthenticate(context.Background(), UnauthOptions{ConsumerID: "c1", ProviderID: "p1"}, nil)
	assert.ErrorContains(t, err, "give the consumer, the provider or both")
	res := &UnauthResult{ConsumerRemove: []kliqo0x.Object{{Kind: "Secret", Namespace: "liqo", Name: "remote-token-p1"}},
		ProviderRemove: []kliqo0x.Object{{Kind: "Namespace", Name: "liqo-tenant-c1"}}}
	assert.Equal(t, []string{"(local) Secret liqo/remote-token-p1", "(remote) Namespace liqo-tenant-c1"}, deleteTargets(res))
	left := leftOnMissingSide(UnauthOptions{}, &UnauthResult{ConsumerID: "c1", ProviderID: "p1"})
	assert.Equal(t, append(ProviderCleanup("c1"), ConsumerCleanup("p1")...), left)
}

// A Liqo 0.x identity is checked against what liqo-remote-peering-basic
// grants (ResourceRequests and their status in its tenant namespace) and
// four things it must not do, not against Liqo v1's resources.
func TestLiqo0xChecks(t *testing.T) {
	var lines []string
	for _, c := range access.Liqo0x {
		lines = append(lines, c.String("liqo-tenant-x"))
	}
	assert.Len(t, lines, 18)
	assert.Contains(t, lines, "delete resourcerequests.discovery.liqo.io -n liqo-tenant-x")
	assert.Contains(t, lines, "update resourcerequests.discovery.liqo.io/status -n liqo-tenant-x")
	assert.Contains(t, lines, "list resourcerequests.discovery.liqo.io -n liqo")
	assert.Contains(t, lines, "list secrets (cluster-wide)")
	assert.Contains(t, lines, "create pods -n liqo-tenant-x")
	assert.NotContains(t, strings.Join(lines, "\n"), "authentication.liqo.io")
}

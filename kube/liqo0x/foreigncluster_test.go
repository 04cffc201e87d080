package liqo0x

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

const (
	fcTestProvider = "5a0f3f0e-52b8-4d5c-9b4c-1a2b3c4d5e6f"
	fcTestURL      = "https://127.0.0.1:31234"
)

var fcTestToken = strings.Repeat("ab12", 32)

// fcWith is a ForeignCluster whose status has the given peering conditions
// (type, status, reason, message).
func fcWith(conds ...[4]string) *unstructured.Unstructured {
	list := []any{}
	for _, c := range conds {
		list = append(list, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[3]})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "legacy-provider"},
		"spec":     map[string]any{"foreignAuthUrl": fcTestURL},
		"status": map[string]any{
			"tenantNamespace":   map[string]any{"local": "liqo-tenant-legacy-provider-aaaaaa", "remote": "liqo-tenant-legacy-consumer-bbbbbb"},
			"peeringConditions": list,
		},
	}}
}

func TestAuthStatusOf(t *testing.T) {
	st := authStatusOf(fcWith(
		[4]string{"ProcessForeignClusterStatus", "Success", "ForeignClusterProcessable", ""},
		[4]string{"AuthenticationStatus", "Established", "IdentityAccepted", "The Identity has been correctly accepted by the remote cluster"}))
	assert.Equal(t, &AuthStatus{Status: "Established", Reason: "IdentityAccepted",
		Message:              "The Identity has been correctly accepted by the remote cluster",
		LocalTenantNamespace: "liqo-tenant-legacy-provider-aaaaaa", RemoteTenantNamespace: "liqo-tenant-legacy-consumer-bbbbbb"}, st)
	assert.Equal(t, &AuthStatus{}, authStatusOf(&unstructured.Unstructured{Object: map[string]any{}}), "no status yet")
}

// Each refusal a real v0.10 (Error/IdentityError) or v0.3 (Denied,
// EmptyDenied) consumer shows (§3.4, §10) becomes one line with the cause
// in words, the URL when unreachable, and never the token.
func TestFailureMessages(t *testing.T) {
	const sent = "Cannot ensure identity: failed to send identity request: "
	tokens := map[string]bool{fcTestToken: true}
	for _, tc := range []struct {
		name, status, reason, message string
		refusal                       Refusal
		says                          []string
	}{
		{"wrong token v0.10", "Error", "IdentityError", sent + `invalid token "` + fcTestToken + "\"\n", WrongToken,
			[]string{"refused the token", "generate the peer info again", "ab12••••••••ab12"}},
		{"wrong token v0.3", "Denied", "IdentityDenied", `Cluster authentication denied by the remote cluster: invalid token "` + fcTestToken + `"`, WrongToken,
			[]string{"refused the token"}},
		{"already issued, other CSR", "Error", "IdentityError", sent + "the stored and the provided CSR for cluster legacy-consumer does not match", AlreadyIssued,
			[]string{"issues only one", "liqo-remote-certificate", ClusterIDLabel}},
		{"already issued, same CSR", "Error", "IdentityError", sent, AlreadyIssued, []string{"issues only one"}},
		{"connection refused", "Error", "IdentityError", sent + `Post "` + fcTestURL + `/identity/certificate": dial tcp 127.0.0.1:31234: connect: connection refused`,
			Unreachable, []string{"not reachable at " + fcTestURL, "connection refused"}},
		{"ids not reachable", "Error", "AuthNotReachable", "The remote authentication service is not reachable", Unreachable,
			[]string{"not reachable at " + fcTestURL}},
		{"v0.3 against v0.4+", "Error", "IdentityError", sent + `RoleBinding.rbac.authorization.k8s.io "liqo-binding-liqo-remote-peering-basic" is invalid: subjects[0].name: Required value`,
			Incompatible, []string{"Liqo v0.3 and v0.4+"}},
		{"other", "Error", "IdentityError", sent + "unexpected response: 500", OtherRefusal, []string{"failed", "unexpected response: 500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := failureOf(fcWith([4]string{"AuthenticationStatus", tc.status, tc.reason, tc.message}), fcTestProvider, tokens)
			require.NotNil(t, f)
			assert.Equal(t, tc.refusal, f.Refusal)
			line := f.Error()
			assert.NotContains(t, line, fcTestToken)
			assert.NotContains(t, line, "\n")
			assert.Contains(t, line, fcTestProvider)
			for _, s := range tc.says {
				assert.Contains(t, line, s)
			}
		})
	}
}

// A refusal is the current attempt's only when it quotes the token stored
// now and the ForeignCluster's URL: after a correction the old Error stays
// until Liqo's next try and must not end the wait.
func TestFailureStaleOrPending(t *testing.T) {
	stale := fcWith([4]string{"AuthenticationStatus", "Error", "IdentityError",
		`Cannot ensure identity: failed to send identity request: invalid token "` + strings.Repeat("0", 128) + `"`})
	assert.Nil(t, failureOf(stale, fcTestProvider, map[string]bool{fcTestToken: true}), "quotes an older token")
	oldURL := fcWith([4]string{"AuthenticationStatus", "Error", "IdentityError",
		`Cannot ensure identity: failed to send identity request: Post "https://10.0.0.1:443/identity/certificate": dial tcp: i/o timeout`})
	assert.Nil(t, failureOf(oldURL, fcTestProvider, nil), "tried another auth URL")
	for _, status := range []string{"", "None", "Pending", "Established"} {
		assert.Nil(t, failureOf(fcWith([4]string{"AuthenticationStatus", status, "", ""}), fcTestProvider, nil), status)
	}
	local := failureOf(fcWith([4]string{"ProcessForeignClusterStatus", "Error", "LocalCluster", "This cluster has the same clusterID of the local cluster"}), fcTestProvider, nil)
	require.NotNil(t, local, "Liqo does not process the ForeignCluster at all")
	assert.Contains(t, local.Error(), "same clusterID of the local cluster")
}

func TestRedactTokens(t *testing.T) {
	assert.Equal(t, `invalid token "ab12••••••••ab12"`, RedactTokens(`invalid token "`+fcTestToken+`"`))
	assert.Equal(t, `invalid token "•••"`, RedactTokens(`invalid token "abc"`), "a short wrong token is masked whole")
	assert.Equal(t, "token ab12••••••••ab12 here", RedactTokens("token "+fcTestToken+" here"))
}

// liqoctl peer out-of-band's spec (§4) on a new ForeignCluster; on an
// existing one what the admin chose stays and the name never changes.
func TestSetPeerSpec(t *testing.T) {
	info := &peerinfo.Info{ClusterID: fcTestProvider, ClusterName: "legacy-provider", AuthURL: fcTestURL, Token: fcTestToken}
	fc := &unstructured.Unstructured{Object: map[string]any{}}
	fc.SetName("legacy-provider")
	require.NoError(t, setPeerSpec(fc, info, PeerOptions{}, true, false))
	assert.Equal(t, map[string]any{
		"clusterIdentity":        map[string]any{"clusterID": fcTestProvider, "clusterName": "legacy-provider"},
		"foreignAuthUrl":         fcTestURL,
		"insecureSkipTLSVerify":  true,
		"incomingPeeringEnabled": "Auto",
		"outgoingPeeringEnabled": "No",
		"peeringType":            "OutOfBand",
	}, fc.Object["spec"])
	assert.Equal(t, map[string]string{ClusterIDLabel: fcTestProvider}, fc.GetLabels())

	existing := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"clusterIdentity":        map[string]any{"clusterID": fcTestProvider, "clusterName": "named-by-liqoctl"},
		"insecureSkipTLSVerify":  false,
		"incomingPeeringEnabled": "Yes",
		"outgoingPeeringEnabled": "Yes",
	}}}
	require.NoError(t, setPeerSpec(existing, info, PeerOptions{}, false, true))
	spec := existing.Object["spec"].(map[string]any)
	assert.Equal(t, "named-by-liqoctl", spec["clusterIdentity"].(map[string]any)["clusterName"], "immutable once set")
	assert.Equal(t, false, spec["insecureSkipTLSVerify"])
	assert.Equal(t, "Yes", spec["incomingPeeringEnabled"])
	assert.Equal(t, "Yes", spec["outgoingPeeringEnabled"], "authentication never turns a peering off")
	assert.NotContains(t, spec, "peeringType", "v0.3 CRD has none")
	assert.NotEmpty(t, existing.GetLabels()[ReconcileLabel], "a token change bumps the label")

	peer := &unstructured.Unstructured{Object: map[string]any{}}
	require.NoError(t, setPeerSpec(peer, info, PeerOptions{Peer: true}, true, false))
	assert.Equal(t, "Yes", peer.Object["spec"].(map[string]any)["outgoingPeeringEnabled"])
}

func TestPeeringReason(t *testing.T) {
	assert.Empty(t, peeringReason(fcWith([4]string{"AuthenticationStatus", "Established", "", ""}), fcTestProvider))
	assert.Empty(t, peeringReason(fcWith([4]string{"OutgoingPeering", "None", "", ""}, [4]string{"IncomingPeering", "None", "", ""}), fcTestProvider))
	reason := peeringReason(fcWith([4]string{"OutgoingPeering", "Established", "", ""}), fcTestProvider)
	assert.Equal(t, "ForeignCluster legacy-provider still peers with "+fcTestProvider+" (OutgoingPeering Established): run `liqoctl unpeer out-of-band legacy-provider` first", reason)
	assert.Contains(t, peeringReason(fcWith([4]string{"IncomingPeering", "Pending", "", ""}), fcTestProvider), "IncomingPeering Pending")
}

// Deletions revoke before they remove: the ForeignCluster first (Liqo
// would ask again), grants, tokens before identities, namespaces last.
func TestDeleteOrder(t *testing.T) {
	objs := []Object{
		{Kind: KindNamespace, Name: "liqo-tenant-x"},
		{Kind: KindSecret, Namespace: "liqo-tenant-x", Name: "liqo-identity-abcde"},
		{Kind: KindCSR, Name: "liqo-identity-zzz"},
		{Kind: KindSecret, Namespace: "liqo", Name: "remote-token-p"},
		{Kind: KindRoleBinding, Namespace: "liqo-tenant-x", Name: BasicBindingName},
		{Kind: KindForeignCluster, Name: "p"},
		{Kind: KindForeignCluster, Name: "p"},
	}
	objs = unique(objs)
	require.Len(t, objs, 6)
	ranks := []int{}
	for _, o := range []Object{objs[5], objs[4], objs[3], objs[1], objs[2], objs[0]} {
		ranks = append(ranks, deleteRank(o))
	}
	assert.IsIncreasing(t, ranks)
	assert.Equal(t, "Namespace liqo-tenant-x", objs[0].String())
	assert.Equal(t, "Secret liqo/remote-token-p", objs[3].String())
}

// A provider whose tenant namespace a reissue just deleted refuses while
// its auth server's cache still holds it, in the words of whichever API
// call met it (both seen from a real v0.10 auth server); other refusals
// are not retried.
func TestTenantNamespaceGoing(t *testing.T) {
	const sent = "Cannot ensure identity: failed to send identity request: "
	for msg, going := range map[string]bool{
		sent + `Namespace "liqo-tenant-liqo0x-consumer-9c6f5e" not found`:                                                         true,
		sent + `namespaces "liqo-tenant-x" not found`:                                                                             true,
		sent + `secrets "s" is forbidden: unable to create new content in namespace liqo-tenant-x because it is being terminated`: true,
		sent + "the stored and the provided CSR for cluster c does not match":                                                     false,
		sent + `secrets "liqo-remote-certificate" not found`:                                                                      false,
	} {
		assert.Equal(t, going, (&AuthFailure{Message: msg}).tenantNamespaceGoing(), msg)
	}
}

package peerings

import (
	"fmt"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// HealthOf is the health of a peering, from its row alone (no call to any
// cluster), at now. The first that holds, in this order, is the verdict
// of a side:
//
//	unauthenticated  the pair was unauthenticated: only what Liqo keeps
//	                 for a later authenticate is left (StageUnauthenticated)
//	expired     the certificate's NotAfter has passed
//	drained     the Tenant is Drained
//	cordoned    the Tenant is Cordoned
//	denied      a ResourceSlice was denied, or Liqo 0.x's identity request refused
//	one-sided   (a remote's row only) nothing on that side for this cluster
//	incomplete  only a tenant namespace, a nonce without Tenant, a signed
//	            nonce without Identity: an admin's step is missing
//	pending     a Tenant, Identity, slice or 0.x identity request waits for
//	            a controller
//	expiring    past 2/3 of the certificate's validity (when it should have
//	            been renewed) and not renewed
//	ok          none of the above
//
// With both sides read (r.Remote), the worse verdict of the two sides wins
// (handshake.Verdict.Severity); the remote's reason starts with "remote: ".
// A provider that unauthenticated a consumer still holding its Identity
// makes the pair one-sided. The reasons say who takes the next step: read
// with one cluster, the other cluster's admin; with both, authenticate from
// here.
func HealthOf(r handshake.Peering, now time.Time) handshake.Health {
	both := r.Remote != nil
	if both {
		if consumer, provider := pairSides(r); provider.Stage == handshake.StageUnauthenticated && !unauthenticatedPair(consumer, provider) {
			return handshake.Health{Verdict: handshake.VerdictOneSided, Reason: "the provider has no Tenant for consumer " + provider.RemoteID +
				", which still holds its Identity: both clusters are at hand: authenticate peers them again from here"}
		}
	}
	own := sideHealth(r, now, both)
	if !both {
		return own
	}
	other := sideHealth(*r.Remote, now, both)
	if other.Verdict.Severity() > own.Verdict.Severity() {
		other.Reason = "remote: " + other.Reason
		return other
	}
	return own
}

// fromHere is the next step of a handshake that stopped, when both
// clusters are at hand.
const fromHere = "both clusters are at hand: authenticate resumes it from here"

// pairSides are the consumer's and the provider's rows of a row read on
// both sides.
func pairSides(r handshake.Peering) (consumer, provider handshake.Peering) {
	if r.Role == handshake.RoleProvider {
		return *r.Remote, r
	}
	return r, *r.Remote
}

// unauthenticatedPair tells whether a pair read on both sides was
// unauthenticated: the provider holds what unauthenticate leaves
// (StageUnauthenticated), the consumer no Identity, kubeconfig or slice.
func unauthenticatedPair(consumer, provider handshake.Peering) bool {
	return provider.Stage == handshake.StageUnauthenticated && consumer.Identity == handshake.StateAbsent &&
		consumer.Stage != handshake.StageAuthenticated && len(consumer.Slices) == 0
}

// markUnauthenticated says, on both sides of a pair read on both that
// was unauthenticated, that it was: the consumer's side alone reads as a
// handshake waiting for the Identity.
func markUnauthenticated(r *handshake.Peering) {
	if r.Remote == nil || r.Role == handshake.RoleUnknown {
		return
	}
	if consumer, provider := pairSides(*r); !unauthenticatedPair(consumer, provider) {
		return
	}
	other := *r.Remote
	r.Stage, other.Stage = handshake.StageUnauthenticated, handshake.StageUnauthenticated
	r.Remote = &other
}

// sideHealth is the verdict of one side's row; both: the other side was
// read too.
func sideHealth(r handshake.Peering, now time.Time, both bool) handshake.Health {
	if r.Stage == handshake.StageUnauthenticated {
		if both {
			return handshake.Health{Verdict: handshake.VerdictUnauthenticated, Reason: "the tenant namespaces stay, as Liqo keeps them; both clusters are at hand: authenticate peers them again from here"}
		}
		return handshake.Health{Verdict: handshake.VerdictUnauthenticated, Reason: "no Tenant; the tenant namespace stays with the nonce and the consumer's certificate; " +
			"the consumer's admin authenticates again (generate tenant)"}
	}
	notAfter := r.CertificateNotAfter
	switch {
	case !notAfter.IsZero() && !now.Before(notAfter):
		return handshake.Health{Verdict: handshake.VerdictExpired, Reason: "certificate expired at " + handshake.TimeText(notAfter)}
	case r.TenantCondition == string(authv1beta1.TenantConditionDrained):
		return handshake.Health{Verdict: handshake.VerdictDrained, Reason: "the provider drained the Tenant: resources neither used nor negotiated"}
	case r.TenantCondition == string(authv1beta1.TenantConditionCordoned):
		return handshake.Health{Verdict: handshake.VerdictCordoned, Reason: "the provider cordoned the Tenant: no new resources"}
	}
	if h, ok := deniedHealth(r); ok {
		return h
	}
	if h, ok := progressHealth(r, both); ok {
		return h
	}
	if !notAfter.IsZero() && !r.CertificateNotBefore.IsZero() {
		if due := kube.RenewalTime(r.CertificateNotBefore, notAfter); !now.Before(due) {
			return handshake.Health{Verdict: handshake.VerdictExpiring, Reason: fmt.Sprintf("certificate expires at %s and was due for renewal at %s", handshake.TimeText(notAfter), handshake.TimeText(due))}
		}
	}
	return handshake.Health{Verdict: handshake.VerdictOK, Reason: okReason(r)}
}

// deniedHealth: a refused slice or 0.x identity request.
func deniedHealth(r handshake.Peering) (handshake.Health, bool) {
	for _, s := range r.Slices {
		if s.Denied() {
			return handshake.Health{Verdict: handshake.VerdictDenied, Reason: "ResourceSlice " + s.Name + " denied" + orEmpty(": ", s.Message)}, true
		}
	}
	if r.Stage == handshake.StageAuthenticating && liqo0x.AuthRefused(authStatusWord(r.Authentication)) {
		return handshake.Health{Verdict: handshake.VerdictDenied, Reason: "the Liqo 0.x provider refused the identity request: " + r.Authentication}, true
	}
	return handshake.Health{}, false
}

// progressHealth: a handshake that stopped (incomplete) or goes on
// (pending), on this side or, for a remote's row, missing there. Where it
// stopped, the next step is the other admin's, or with both clusters read
// (both) authenticate's from here.
func progressHealth(r handshake.Peering, both bool) (handshake.Health, bool) {
	incomplete := func(what, next string) (handshake.Health, bool) {
		if both {
			next = fromHere
		}
		return handshake.Health{Verdict: handshake.VerdictIncomplete, Reason: what + ": " + next}, true
	}
	switch {
	case r.Stage == "" && r.Identity == handshake.StateAbsent && r.Tenant == handshake.StateAbsent && r.TenantNamespace == "":
		return handshake.Health{Verdict: handshake.VerdictOneSided, Reason: "this cluster has no handshake object about " + r.RemoteID}, true
	case r.Role == handshake.RoleUnknown:
		return handshake.Health{Verdict: handshake.VerdictIncomplete, Reason: "only the tenant namespace " + r.TenantNamespace + ": no handshake object in it"}, true
	case r.Tenant == handshake.StateDeleting || r.Identity == handshake.StateDeleting:
		return handshake.Health{Verdict: handshake.VerdictPending, Reason: "being deleted"}, true
	case r.Tenant == handshake.StatePending:
		return handshake.Health{Verdict: handshake.VerdictPending, Reason: "the Tenant waits for the provider's controller to accept it"}, true
	case r.Identity == handshake.StatePending && r.Stage == handshake.StageAuthenticating:
		return handshake.Health{Verdict: handshake.VerdictPending, Reason: "Liqo 0.x is asking the provider for an identity" + orEmpty(" (", r.Authentication, ")")}, true
	case r.Identity == handshake.StatePending:
		return handshake.Health{Verdict: handshake.VerdictPending, Reason: "the Identity waits for its kubeconfig Secret"}, true
	case r.Stage == handshake.StageCreateNonce:
		return incomplete("no nonce for the consumer", "create it (create nonce)")
	case r.Stage == handshake.StageAwaitTenant:
		return incomplete("nonce created, no Tenant", "the consumer's admin sends it (generate tenant)")
	case r.Stage == handshake.StageAwaitNonce:
		return incomplete("nothing signed for the provider", "its nonce comes first")
	case r.Stage == handshake.StageAwaitIdentity:
		return incomplete("nonce signed, no Identity", "the provider's admin sends it (generate identity)")
	}
	for _, s := range r.Slices {
		if s.Authentication == "" {
			return handshake.Health{Verdict: handshake.VerdictPending, Reason: "ResourceSlice " + s.Name + " waits for the provider's answer"}, true
		}
	}
	return handshake.Health{}, false
}

func okReason(r handshake.Peering) string {
	switch {
	case r.Role == handshake.RoleProvider && r.Generation == handshake.GenerationLiqo0x:
		return "identity issued"
	case r.Role == handshake.RoleProvider:
		return "Tenant accepted"
	}
	return "authenticated"
}

// authStatusWord is the status of an "<status>: <message>" line.
func authStatusWord(line string) string {
	status, _, _ := strings.Cut(line, ":")
	return status
}

// orEmpty is prefix+s+suffix, or "" when s is "".
func orEmpty(prefix, s string, suffix ...string) string {
	if s == "" {
		return ""
	}
	for _, x := range suffix {
		s += x
	}
	return prefix + s
}

package flows

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
func HealthOf(r PeeringRow, now time.Time) Health {
	own := sideHealth(r, now)
	if r.Remote == nil {
		return own
	}
	other := sideHealth(*r.Remote, now)
	if other.Verdict.Severity() > own.Verdict.Severity() {
		other.Reason = "remote: " + other.Reason
		return other
	}
	return own
}

// sideHealth is the verdict of one side's row.
func sideHealth(r PeeringRow, now time.Time) Health {
	notAfter := r.CertificateNotAfter
	switch {
	case !notAfter.IsZero() && !now.Before(notAfter):
		return Health{handshake.VerdictExpired, "certificate expired at " + timeText(notAfter)}
	case r.TenantCondition == string(authv1beta1.TenantConditionDrained):
		return Health{handshake.VerdictDrained, "the provider drained the Tenant: resources neither used nor negotiated"}
	case r.TenantCondition == string(authv1beta1.TenantConditionCordoned):
		return Health{handshake.VerdictCordoned, "the provider cordoned the Tenant: no new resources"}
	}
	if h, ok := deniedHealth(r); ok {
		return h
	}
	if h, ok := progressHealth(r); ok {
		return h
	}
	if !notAfter.IsZero() && !r.CertificateNotBefore.IsZero() {
		if due := kube.RenewalTime(r.CertificateNotBefore, notAfter); !now.Before(due) {
			return Health{handshake.VerdictExpiring, fmt.Sprintf("certificate expires at %s and was due for renewal at %s", timeText(notAfter), timeText(due))}
		}
	}
	return Health{Verdict: handshake.VerdictOK, Reason: okReason(r)}
}

// deniedHealth: a refused slice or 0.x identity request.
func deniedHealth(r PeeringRow) (Health, bool) {
	for _, s := range r.Slices {
		if s.Denied() {
			return Health{handshake.VerdictDenied, "ResourceSlice " + s.Name + " denied" + orEmpty(": ", s.Message)}, true
		}
	}
	if r.Stage == handshake.StageAuthenticating && liqo0x.AuthRefused(authStatusWord(r.Authentication)) {
		return Health{handshake.VerdictDenied, "the Liqo 0.x provider refused the identity request: " + r.Authentication}, true
	}
	return Health{}, false
}

// progressHealth: a handshake that stopped (incomplete) or goes on
// (pending), on this side or, for a remote's row, missing there.
func progressHealth(r PeeringRow) (Health, bool) {
	switch {
	case r.Stage == "" && r.Identity == StateAbsent && r.Tenant == StateAbsent && r.TenantNamespace == "":
		return Health{handshake.VerdictOneSided, "this cluster has no handshake object about " + r.RemoteID}, true
	case r.Role == handshake.RoleUnknown:
		return Health{handshake.VerdictIncomplete, "only the tenant namespace " + r.TenantNamespace + ": no handshake object in it"}, true
	case r.Tenant == StateDeleting || r.Identity == StateDeleting:
		return Health{handshake.VerdictPending, "being deleted"}, true
	case r.Tenant == StatePending:
		return Health{handshake.VerdictPending, "the Tenant waits for the provider's controller to accept it"}, true
	case r.Identity == StatePending && r.Stage == handshake.StageAuthenticating:
		return Health{handshake.VerdictPending, "Liqo 0.x is asking the provider for an identity" + orEmpty(" (", r.Authentication, ")")}, true
	case r.Identity == StatePending:
		return Health{handshake.VerdictPending, "the Identity waits for its kubeconfig Secret"}, true
	case r.Stage == handshake.StageCreateNonce:
		return Health{handshake.VerdictIncomplete, "no nonce for the consumer: create it (create nonce)"}, true
	case r.Stage == handshake.StageAwaitTenant:
		return Health{handshake.VerdictIncomplete, "nonce created, no Tenant: the consumer's admin sends it (generate tenant)"}, true
	case r.Stage == handshake.StageAwaitNonce:
		return Health{handshake.VerdictIncomplete, "nothing signed for the provider: its nonce comes first"}, true
	case r.Stage == handshake.StageAwaitIdentity:
		return Health{handshake.VerdictIncomplete, "nonce signed, no Identity: the provider's admin sends it (generate identity)"}, true
	}
	for _, s := range r.Slices {
		if s.Authentication == "" {
			return Health{handshake.VerdictPending, "ResourceSlice " + s.Name + " waits for the provider's answer"}, true
		}
	}
	return Health{}, false
}

func okReason(r PeeringRow) string {
	switch {
	case r.Role == handshake.RoleProvider && r.Generation == GenerationLiqo0x:
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

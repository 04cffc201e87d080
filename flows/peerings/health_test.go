package peerings_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
)

// Each verdict from the row alone, and the order in which they win.
func TestHealthOfARow(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	year := 365 * 24 * time.Hour
	fresh := func(r handshake.Peering) handshake.Peering {
		r.CertificateNotBefore, r.CertificateNotAfter = now.Add(-time.Hour), now.Add(year)
		return r
	}
	provider := fresh(handshake.Peering{RemoteID: "c", Role: handshake.RoleProvider, Generation: handshake.GenerationV1,
		Stage: handshake.StageGenerateIdentity, Tenant: handshake.StateReady, TenantCondition: "Active"})
	consumer := fresh(handshake.Peering{RemoteID: "p", Role: handshake.RoleConsumer, Generation: handshake.GenerationV1,
		Stage: handshake.StageAuthenticated, Identity: handshake.StateReady})
	with := func(r handshake.Peering, f func(*handshake.Peering)) handshake.Peering {
		f(&r)
		return r
	}
	denied := handshake.SliceStatus{Name: "s", Authentication: "Accepted", Resources: "Denied", Message: "not enough CPU"}
	for _, tc := range []struct {
		name string
		row  handshake.Peering
		want handshake.Health
	}{
		{"provider complete", provider, handshake.Health{Verdict: handshake.VerdictOK, Reason: "Tenant accepted"}},
		{"consumer complete", consumer, handshake.Health{Verdict: handshake.VerdictOK, Reason: "authenticated"}},
		{"expired wins over drained", with(provider, func(r *handshake.Peering) { r.CertificateNotAfter, r.TenantCondition = now, "Drained" }),
			handshake.Health{Verdict: handshake.VerdictExpired, Reason: "certificate expired at 2026-06-01T00:00:00Z"}},
		{"drained wins over a denied slice", with(provider, func(r *handshake.Peering) { r.TenantCondition, r.Slices = "Drained", []handshake.SliceStatus{denied} }),
			handshake.Health{Verdict: handshake.VerdictDrained, Reason: "the provider drained the Tenant: resources neither used nor negotiated"}},
		{"cordoned", with(provider, func(r *handshake.Peering) { r.TenantCondition = "Cordoned" }),
			handshake.Health{Verdict: handshake.VerdictCordoned, Reason: "the provider cordoned the Tenant: no new resources"}},
		{"denied slice", with(consumer, func(r *handshake.Peering) { r.Slices = []handshake.SliceStatus{denied} }),
			handshake.Health{Verdict: handshake.VerdictDenied, Reason: "ResourceSlice s denied: not enough CPU"}},
		{"0.x refusal", handshake.Peering{RemoteID: "p", Role: handshake.RoleConsumer, Generation: handshake.GenerationLiqo0x, Stage: handshake.StageAuthenticating,
			Identity: handshake.StatePending, Authentication: "Error: Cannot ensure identity"},
			handshake.Health{Verdict: handshake.VerdictDenied, Reason: "the Liqo 0.x provider refused the identity request: Error: Cannot ensure identity"}},
		{"0.x asking", handshake.Peering{RemoteID: "p", Role: handshake.RoleConsumer, Generation: handshake.GenerationLiqo0x, Stage: handshake.StageAuthenticating,
			Identity: handshake.StatePending, Authentication: "Pending"},
			handshake.Health{Verdict: handshake.VerdictPending, Reason: "Liqo 0.x is asking the provider for an identity (Pending)"}},
		{"Tenant not accepted yet", handshake.Peering{RemoteID: "c", Role: handshake.RoleProvider, Stage: handshake.StageAwaitTenant, Tenant: handshake.StatePending},
			handshake.Health{Verdict: handshake.VerdictPending, Reason: "the Tenant waits for the provider's controller to accept it"}},
		{"slice undecided", with(consumer, func(r *handshake.Peering) { r.Slices = []handshake.SliceStatus{{Name: "s"}} }),
			handshake.Health{Verdict: handshake.VerdictPending, Reason: "ResourceSlice s waits for the provider's answer"}},
		{"nonce only", handshake.Peering{RemoteID: "c", Role: handshake.RoleProvider, Stage: handshake.StageAwaitTenant},
			handshake.Health{Verdict: handshake.VerdictIncomplete, Reason: "nonce created, no Tenant: the consumer's admin sends it (generate tenant)"}},
		{"signed nonce only", handshake.Peering{RemoteID: "p", Role: handshake.RoleConsumer, Stage: handshake.StageAwaitIdentity},
			handshake.Health{Verdict: handshake.VerdictIncomplete, Reason: "nonce signed, no Identity: the provider's admin sends it (generate identity)"}},
		{"tenant namespace only", handshake.Peering{RemoteID: "x", TenantNamespace: "liqo-tenant-x"},
			handshake.Health{Verdict: handshake.VerdictIncomplete, Reason: "only the tenant namespace liqo-tenant-x: no handshake object in it"}},
		{"past 2/3 of the validity", with(consumer, func(r *handshake.Peering) {
			r.CertificateNotBefore, r.CertificateNotAfter = now.Add(-70*time.Hour), now.Add(30*time.Hour)
		}),
			handshake.Health{Verdict: handshake.VerdictExpiring, Reason: "certificate expires at 2026-06-02T06:00:00Z and was due for renewal at 2026-05-31T20:40:00Z"}},
		{"the remote's worse verdict", with(consumer, func(r *handshake.Peering) {
			p := with(provider, func(p *handshake.Peering) { p.TenantCondition = "Cordoned" })
			r.Remote = &p
		}),
			handshake.Health{Verdict: handshake.VerdictCordoned, Reason: "remote: the provider cordoned the Tenant: no new resources"}},
		{"a stopped handshake read on both sides: resumed from here", with(consumer, func(r *handshake.Peering) {
			r.Stage, r.Identity, r.CertificateNotAfter = handshake.StageAwaitIdentity, handshake.StateAbsent, time.Time{}
			r.Remote = &handshake.Peering{RemoteID: "me", Role: handshake.RoleProvider, Generation: handshake.GenerationV1, Stage: handshake.StageGenerateIdentity,
				Tenant: handshake.StateReady, TenantNamespace: "liqo-tenant-me"}
		}), handshake.Health{Verdict: handshake.VerdictIncomplete, Reason: "nonce signed, no Identity: both clusters are at hand: authenticate resumes it from here"}},
		{"unauthenticated, the provider alone", handshake.Peering{RemoteID: "c", Role: handshake.RoleProvider, Stage: handshake.StageUnauthenticated,
			CertificateNotAfter: now},
			handshake.Health{Verdict: handshake.VerdictUnauthenticated, Reason: "no Tenant; the tenant namespace stays with the nonce and the consumer's certificate; " +
				"the consumer's admin authenticates again (generate tenant)"}},
		{"unauthenticated on both sides", handshake.Peering{RemoteID: "p", Role: handshake.RoleConsumer, Stage: handshake.StageUnauthenticated,
			Remote: &handshake.Peering{RemoteID: "me", Role: handshake.RoleProvider, Stage: handshake.StageUnauthenticated}},
			handshake.Health{Verdict: handshake.VerdictUnauthenticated, Reason: "the tenant namespaces stay, as Liqo keeps them; " +
				"both clusters are at hand: authenticate peers them again from here"}},
		{"unauthenticated by the provider, the consumer's Identity kept", with(consumer, func(r *handshake.Peering) {
			r.Remote = &handshake.Peering{RemoteID: "me", Role: handshake.RoleProvider, Stage: handshake.StageUnauthenticated}
		}), handshake.Health{Verdict: handshake.VerdictOneSided, Reason: "the provider has no Tenant for consumer me, which still holds its Identity: " +
			"both clusters are at hand: authenticate peers them again from here"}},
		{"one-sided", with(consumer, func(r *handshake.Peering) {
			r.Remote = &handshake.Peering{RemoteID: "me", Role: handshake.RoleProvider, Generation: handshake.GenerationV1}
		}), handshake.Health{Verdict: handshake.VerdictOneSided, Reason: "remote: this cluster has no handshake object about me"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, peerings.HealthOf(tc.row, now))
		})
	}
}

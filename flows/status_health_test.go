package flows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Each verdict from the row alone, and the order in which they win.
func TestHealthOfARow(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	year := 365 * 24 * time.Hour
	fresh := func(r flows.PeeringRow) flows.PeeringRow {
		r.CertificateNotBefore, r.CertificateNotAfter = now.Add(-time.Hour), now.Add(year)
		return r
	}
	provider := fresh(flows.PeeringRow{RemoteID: "c", Role: handshake.RoleProvider, Generation: flows.GenerationV1,
		Stage: handshake.StageGenerateIdentity, Tenant: flows.StateReady, TenantCondition: "Active"})
	consumer := fresh(flows.PeeringRow{RemoteID: "p", Role: handshake.RoleConsumer, Generation: flows.GenerationV1,
		Stage: handshake.StageAuthenticated, Identity: flows.StateReady})
	with := func(r flows.PeeringRow, f func(*flows.PeeringRow)) flows.PeeringRow {
		f(&r)
		return r
	}
	denied := flows.SliceStatus{Name: "s", Authentication: "Accepted", Resources: "Denied", Message: "not enough CPU"}
	for _, tc := range []struct {
		name string
		row  flows.PeeringRow
		want flows.Health
	}{
		{"provider complete", provider, flows.Health{Verdict: handshake.VerdictOK, Reason: "Tenant accepted"}},
		{"consumer complete", consumer, flows.Health{Verdict: handshake.VerdictOK, Reason: "authenticated"}},
		{"expired wins over drained", with(provider, func(r *flows.PeeringRow) { r.CertificateNotAfter, r.TenantCondition = now, "Drained" }),
			flows.Health{Verdict: handshake.VerdictExpired, Reason: "certificate expired at 2026-06-01T00:00:00Z"}},
		{"drained wins over a denied slice", with(provider, func(r *flows.PeeringRow) { r.TenantCondition, r.Slices = "Drained", []flows.SliceStatus{denied} }),
			flows.Health{Verdict: handshake.VerdictDrained, Reason: "the provider drained the Tenant: resources neither used nor negotiated"}},
		{"cordoned", with(provider, func(r *flows.PeeringRow) { r.TenantCondition = "Cordoned" }),
			flows.Health{Verdict: handshake.VerdictCordoned, Reason: "the provider cordoned the Tenant: no new resources"}},
		{"denied slice", with(consumer, func(r *flows.PeeringRow) { r.Slices = []flows.SliceStatus{denied} }),
			flows.Health{Verdict: handshake.VerdictDenied, Reason: "ResourceSlice s denied: not enough CPU"}},
		{"0.x refusal", flows.PeeringRow{RemoteID: "p", Role: handshake.RoleConsumer, Generation: flows.GenerationLiqo0x, Stage: handshake.StageAuthenticating,
			Identity: flows.StatePending, Authentication: "Error: Cannot ensure identity"},
			flows.Health{Verdict: handshake.VerdictDenied, Reason: "the Liqo 0.x provider refused the identity request: Error: Cannot ensure identity"}},
		{"0.x asking", flows.PeeringRow{RemoteID: "p", Role: handshake.RoleConsumer, Generation: flows.GenerationLiqo0x, Stage: handshake.StageAuthenticating,
			Identity: flows.StatePending, Authentication: "Pending"},
			flows.Health{Verdict: handshake.VerdictPending, Reason: "Liqo 0.x is asking the provider for an identity (Pending)"}},
		{"Tenant not accepted yet", flows.PeeringRow{RemoteID: "c", Role: handshake.RoleProvider, Stage: handshake.StageAwaitTenant, Tenant: flows.StatePending},
			flows.Health{Verdict: handshake.VerdictPending, Reason: "the Tenant waits for the provider's controller to accept it"}},
		{"slice undecided", with(consumer, func(r *flows.PeeringRow) { r.Slices = []flows.SliceStatus{{Name: "s"}} }),
			flows.Health{Verdict: handshake.VerdictPending, Reason: "ResourceSlice s waits for the provider's answer"}},
		{"nonce only", flows.PeeringRow{RemoteID: "c", Role: handshake.RoleProvider, Stage: handshake.StageAwaitTenant},
			flows.Health{Verdict: handshake.VerdictIncomplete, Reason: "nonce created, no Tenant: the consumer's admin sends it (generate tenant)"}},
		{"signed nonce only", flows.PeeringRow{RemoteID: "p", Role: handshake.RoleConsumer, Stage: handshake.StageAwaitIdentity},
			flows.Health{Verdict: handshake.VerdictIncomplete, Reason: "nonce signed, no Identity: the provider's admin sends it (generate identity)"}},
		{"tenant namespace only", flows.PeeringRow{RemoteID: "x", TenantNamespace: "liqo-tenant-x"},
			flows.Health{Verdict: handshake.VerdictIncomplete, Reason: "only the tenant namespace liqo-tenant-x: no handshake object in it"}},
		{"past 2/3 of the validity", with(consumer, func(r *flows.PeeringRow) {
			r.CertificateNotBefore, r.CertificateNotAfter = now.Add(-70*time.Hour), now.Add(30*time.Hour)
		}),
			flows.Health{Verdict: handshake.VerdictExpiring, Reason: "certificate expires at 2026-06-02T06:00:00Z and was due for renewal at 2026-05-31T20:40:00Z"}},
		{"the remote's worse verdict", with(consumer, func(r *flows.PeeringRow) {
			p := with(provider, func(p *flows.PeeringRow) { p.TenantCondition = "Cordoned" })
			r.Remote = &p
		}),
			flows.Health{Verdict: handshake.VerdictCordoned, Reason: "remote: the provider cordoned the Tenant: no new resources"}},
		{"a stopped handshake read on both sides: resumed from here", with(consumer, func(r *flows.PeeringRow) {
			r.Stage, r.Identity, r.CertificateNotAfter = handshake.StageAwaitIdentity, flows.StateAbsent, time.Time{}
			r.Remote = &flows.PeeringRow{RemoteID: "me", Role: handshake.RoleProvider, Generation: flows.GenerationV1, Stage: handshake.StageGenerateIdentity,
				Tenant: flows.StateReady, TenantNamespace: "liqo-tenant-me"}
		}), flows.Health{Verdict: handshake.VerdictIncomplete, Reason: "nonce signed, no Identity: both clusters are at hand: authenticate resumes it from here"}},
		{"unauthenticated, the provider alone", flows.PeeringRow{RemoteID: "c", Role: handshake.RoleProvider, Stage: handshake.StageUnauthenticated,
			CertificateNotAfter: now},
			flows.Health{Verdict: handshake.VerdictUnauthenticated, Reason: "no Tenant; the tenant namespace stays with the nonce and the consumer's certificate; " +
				"the consumer's admin authenticates again (generate tenant)"}},
		{"unauthenticated on both sides", flows.PeeringRow{RemoteID: "p", Role: handshake.RoleConsumer, Stage: handshake.StageUnauthenticated,
			Remote: &flows.PeeringRow{RemoteID: "me", Role: handshake.RoleProvider, Stage: handshake.StageUnauthenticated}},
			flows.Health{Verdict: handshake.VerdictUnauthenticated, Reason: "the tenant namespaces stay, as Liqo keeps them; " +
				"both clusters are at hand: authenticate peers them again from here"}},
		{"unauthenticated by the provider, the consumer's Identity kept", with(consumer, func(r *flows.PeeringRow) {
			r.Remote = &flows.PeeringRow{RemoteID: "me", Role: handshake.RoleProvider, Stage: handshake.StageUnauthenticated}
		}), flows.Health{Verdict: handshake.VerdictOneSided, Reason: "the provider has no Tenant for consumer me, which still holds its Identity: " +
			"both clusters are at hand: authenticate peers them again from here"}},
		{"one-sided", with(consumer, func(r *flows.PeeringRow) {
			r.Remote = &flows.PeeringRow{RemoteID: "me", Role: handshake.RoleProvider, Generation: flows.GenerationV1}
		}), flows.Health{Verdict: handshake.VerdictOneSided, Reason: "remote: this cluster has no handshake object about me"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, flows.HealthOf(tc.row, now))
		})
	}
}

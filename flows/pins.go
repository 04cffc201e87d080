package flows

import (
	"context"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// checkIdentityPin refuses an Identity that is not the pinned provider's
// (pin "" = no pin): its CA, or, without one (a publicly trusted API
// server), the certificate its API server presents.
func checkIdentityPin(ctx context.Context, id *authv1beta1.Identity, pin string) error {
	if pin == "" || len(id.Spec.AuthParams.CA) > 0 {
		return artifact.CheckIdentityCAPin(id, pin)
	}
	server := id.Spec.AuthParams.APIServer
	got, err := ServerCertificateFingerprint(ctx, server)
	if err != nil {
		return fmt.Errorf("--provider-fingerprint: this Identity carries no CA, so the pin is checked against the certificate of its API server %s, which could not be read from here (%w): run the command where it is reachable", server, err)
	}
	return artifact.CheckServerPin("this Identity points at an API server ("+server+") whose certificate is not the provider's", pin, got)
}

// ServerCertificateFingerprint is the fingerprint of the certificate an
// https server presents (kube's, for the front-ends, which import no kube).
var ServerCertificateFingerprint = kube.ServerCertificateFingerprint

// IdentityPin is what pins the provider of an Identity, as the consumer's
// --provider-fingerprint checks it: its CA, or without one its API
// server's certificate ("" when that cannot be read from here); what names it.
func IdentityPin(ctx context.Context, id *authv1beta1.Identity) (pin, what string) {
	if len(id.Spec.AuthParams.CA) > 0 {
		pin, _ = artifact.IdentityCAFingerprint(id)
		return pin, "provider CA"
	}
	pin, _ = ServerCertificateFingerprint(ctx, id.Spec.AuthParams.APIServer)
	return pin, "API server certificate"
}

// ProviderPin is what a consumer pins cluster c (probed as info) with as a
// provider, the --provider-fingerprint that checkIdentityPin checks: the CA
// its Identities carry, else its API server's certificate. A Liqo 0.x
// provider is pinned by its auth server's certificate instead, which
// `generate peer-info` prints (flows/liqo0x checks it). "" when it cannot be
// told.
func ProviderPin(ctx context.Context, c *Cluster, info *ClusterInfo) string {
	if info.ClusterID == "" || info.Restricted || RunsLiqo0x(info.LiqoRelease) {
		return ""
	}
	adv, err := Advertised(ctx, c, EngineOptions{})
	if err != nil {
		return ""
	}
	if adv.CAFingerprint != "" {
		return adv.CAFingerprint
	}
	pin, _ := ServerCertificateFingerprint(ctx, adv.APIServer)
	return pin
}

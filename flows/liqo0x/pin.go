package liqo0x

import (
	"context"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// checkAuthServerPin refuses a Liqo 0.x peer info whose auth server does
// not present the pinned certificate (pin "" = no pin).
func checkAuthServerPin(ctx context.Context, authURL, pin string) error {
	if pin == "" {
		return nil
	}
	got, err := kube.ServerCertificateFingerprint(ctx, authURL)
	if err != nil {
		return fmt.Errorf("--provider-fingerprint: the certificate of the auth server %s could not be read from here (%w): run the command where it is reachable", authURL, err)
	}
	return artifact.CheckServerPin("this peer info points at an auth server ("+authURL+") whose certificate is not the provider's", pin, got)
}

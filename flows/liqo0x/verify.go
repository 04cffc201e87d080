package liqo0x

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// VerifyIdentity verifies with the identity a consumer running Liqo
// 0.x stored for providerID (its liqo-identity-* Secret): who it is on the
// provider and what it may do in its tenant namespace there. NotFound when
// the consumer holds none.
func VerifyIdentity(ctx context.Context, consumer *kube.Cluster, providerID string) (*handshake.Verification, error) {
	id, err := kliqo0x.On(consumer).IdentityFor(ctx, providerID)
	if err != nil {
		return nil, err
	}
	v, err := access.Verify(ctx, id.Config, id.RemoteNamespace, access.Liqo0x)
	if err != nil {
		return nil, access.AdvertisedUnreachable(err)
	}
	if v.CertificateNotAfter.IsZero() {
		v.CertificateNotAfter = id.NotAfter
	}
	return v, nil
}

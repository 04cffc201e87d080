package wizardbackend

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// GeneratePeeringUser makes the peering user of consumerID on the provider,
// as `generate peering-user` does, with the server and CA the wizard
// advertises to the consumer (its overrides and edits, else the provider's
// own rule).
// The kubeconfig holds the user's private key: the artifact is Sensitive
// and its Preview masks the key and the client certificate.
func (b *Backend) GeneratePeeringUser(ctx context.Context, provider tui.ClusterRef, consumerID string, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	user, err := flows.GeneratePeeringUser(ctx, c, consumerID,
		flows.PeeringUserOptions{APIServerOverride: b.engine.APIServerOverride, CAOverride: b.engine.CAOverride, TrustedCA: b.engine.TrustedCA}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	own, err := flows.ClusterID(ctx, c)
	if err != nil {
		return nil, explainErr(err)
	}
	return peeringUserArtifact(user, own)
}

func peeringUserArtifact(user *flows.PeeringUser, ownID string) (*tui.Artifact, error) {
	server, preview, err := flows.PeeringUserPreview(user)
	if err != nil {
		return nil, err
	}
	return &tui.Artifact{Kind: handshake.KindPeeringUser, Data: user.Kubeconfig, Sensitive: true, FromID: ownID, ForID: user.ConsumerID,
		User: user.User, NotAfter: user.Expires, APIServer: server, Preview: preview}, nil
}

package wizardbackend

import (
	"context"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// PeerInfo gathers a Liqo 0.x provider's peer info as a Masked artifact:
// Data is the line to hand over, Preview never shows the token.
func (b *Backend) PeerInfo(ctx context.Context, provider tui.ClusterRef, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	info, err := liqo0x.GeneratePeerInfo(ctx, c, "", sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return peerInfoArtifact(info, "")
}

// CheckPeerInfo validates pasted peer info for consumer, writing nothing:
// a peer info of the consumer itself is refused here.
func (b *Backend) CheckPeerInfo(ctx context.Context, consumer tui.ClusterRef, data []byte) (*tui.Artifact, error) {
	c, err := b.connect(consumer)
	if err != nil {
		// A bad paste is said first; an unreachable consumer is for
		// ApplyPeerInfo to explain.
		info, perr := artifact.ParsePeerInfo(data)
		if perr != nil {
			return nil, explainErr(perr)
		}
		return peerInfoArtifact(info, "")
	}
	info, forID, err := liqo0x.CheckPeerInfo(ctx, c, data)
	if err != nil {
		return nil, explainErr(err)
	}
	return peerInfoArtifact(info, forID)
}

// ApplyPeerInfo authenticates consumer from pasted peer info.
func (b *Backend) ApplyPeerInfo(ctx context.Context, consumer tui.ClusterRef, data []byte, o tui.Liqo0xOptions, sink handshake.Sink) (*tui.Liqo0xResult, error) {
	info, err := artifact.ParsePeerInfo(data)
	if err != nil {
		return nil, explainErr(err)
	}
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainScoped(handshake.Local, err)
	}
	res, err := liqo0x.ApplyPeerInfo(ctx, c, info, b.liqo0xOptions(o), sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return liqo0xResult(res), nil
}

// AuthenticateLiqo0x is the automated Liqo 0.x flow.
func (b *Backend) AuthenticateLiqo0x(ctx context.Context, consumer, provider tui.ClusterRef, o tui.Liqo0xOptions, sink handshake.Sink) (*tui.Liqo0xResult, error) {
	c, p, err := b.connectPair(consumer, provider)
	if err != nil {
		return nil, err
	}
	res, err := liqo0x.Authenticate(ctx, c, p, "", b.liqo0xOptions(o), sink)
	if err != nil {
		return nil, explainErr(err)
	}
	return liqo0xResult(res), nil
}

// liqo0xOptions: the wizard keeps the default TLS policy, the commands'
// (Liqo's: the auth server's self-signed certificate is accepted; it is
// verified when it can be).
func (b *Backend) liqo0xOptions(o tui.Liqo0xOptions) liqo0x.Options {
	return liqo0x.Options{Peer: o.Peer, Reissue: o.Reissue, InsecureSkipTLSVerify: liqo0x.DefaultInsecureSkipTLSVerify, StepTimeout: b.stepTimeout}
}

func peerInfoArtifact(info *liqo0x.PeerInfo, forID string) (*tui.Artifact, error) {
	line, err := artifact.EncodePeerInfo(info)
	if err != nil {
		return nil, explainErr(err)
	}
	a := &tui.Artifact{Kind: handshake.KindPeerInfo, Data: []byte(line), Masked: true,
		Preview: fmt.Sprintf("cluster %s (%s), auth URL %s, token %s", info.ClusterName, info.ClusterID, info.AuthURL, info.MaskedToken()),
		FromID:  info.ClusterID, ForID: forID, Equivalent: liqo0x.LiqoctlPeerCommand(info),
		MaskedEquivalent: liqo0x.LiqoctlPeerCommand(liqo0x.MaskedPeerInfo(info))}
	if info.AuthenticationDisabled {
		a.Warning = handshake.AuthenticationDisabledWarning(info.AuthURL)
	}
	return a, nil
}

func liqo0xResult(r *liqo0x.Result) *tui.Liqo0xResult {
	return &tui.Liqo0xResult{ConsumerID: r.ConsumerID, ProviderID: r.ProviderID, ByTool: r.ByTool, AlreadyAuthenticated: r.AlreadyAuthenticated,
		IdentitySecret: r.IdentitySecret, User: r.User, Groups: r.Groups, Issued: r.Issued, NotAfter: r.NotAfter,
		TLSVerified: r.TLSVerified, AuthenticationDisabled: r.AuthenticationDisabled}
}

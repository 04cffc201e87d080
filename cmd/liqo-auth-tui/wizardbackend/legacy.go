package wizardbackend

import (
	"context"
	"errors"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// PeerInfo gathers a Liqo 0.x provider's peer info as a Masked artifact:
// Data is the line to hand over, Preview never shows the token.
func (b *Backend) PeerInfo(ctx context.Context, provider tui.ClusterRef, sink handshake.Sink) (*tui.Artifact, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainLegacy(err)
	}
	info, err := flows.GeneratePeerInfo(ctx, c, "", sink)
	if err != nil {
		return nil, explainLegacy(err)
	}
	return peerInfoArtifact(info, "")
}

// CheckPeerInfo validates pasted peer info for consumer, writing nothing:
// a peer info of the consumer itself is refused here.
func (b *Backend) CheckPeerInfo(ctx context.Context, consumer tui.ClusterRef, data []byte) (*tui.Artifact, error) {
	info, err := artifact.ParsePeerInfo(data)
	if err != nil {
		return nil, explainLegacy(err)
	}
	forID := ""
	if c, err := b.connect(consumer); err == nil {
		// No ID yet (a cluster without init) is for ApplyPeerInfo to explain.
		if id, err := c.ClusterID(ctx); err == nil {
			if id == info.ClusterID {
				return nil, explainLegacy(fmt.Errorf("the peer info is this cluster's own (cluster ID %s): apply it on the consumer, not on the provider", id))
			}
			forID = id
		}
	}
	return peerInfoArtifact(info, forID)
}

// ApplyPeerInfo authenticates consumer from pasted peer info.
func (b *Backend) ApplyPeerInfo(ctx context.Context, consumer tui.ClusterRef, data []byte, o tui.LegacyOptions, sink handshake.Sink) (*tui.LegacyResult, error) {
	info, err := artifact.ParsePeerInfo(data)
	if err != nil {
		return nil, explainLegacy(err)
	}
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainScoped(handshake.Local, err)
	}
	res, err := flows.ApplyPeerInfo(ctx, c, info, b.legacyOptions(o), sink)
	if err != nil {
		return nil, explainLegacy(err)
	}
	return legacyResult(res), nil
}

// AuthenticateLegacy is the automated Liqo 0.x flow.
func (b *Backend) AuthenticateLegacy(ctx context.Context, consumer, provider tui.ClusterRef, o tui.LegacyOptions, sink handshake.Sink) (*tui.LegacyResult, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainScoped(handshake.Local, err)
	}
	p, err := b.connect(provider)
	if err != nil {
		return nil, explainScoped(handshake.Remote, err)
	}
	res, err := flows.AuthenticateLegacy(ctx, c, p, "", b.legacyOptions(o), sink)
	if err != nil {
		return nil, explainLegacy(err)
	}
	return legacyResult(res), nil
}

// legacyOptions: the wizard keeps Liqo's default of accepting the auth
// server's self-signed certificate (it is verified when it can be).
func (b *Backend) legacyOptions(o tui.LegacyOptions) flows.LegacyOptions {
	return flows.LegacyOptions{Peer: o.Peer, Reissue: o.Reissue, InsecureSkipTLSVerify: true, StepTimeout: b.stepTimeout}
}

func peerInfoArtifact(info *peerinfo.Info, forID string) (*tui.Artifact, error) {
	line, err := artifact.EncodePeerInfo(info)
	if err != nil {
		return nil, explainLegacy(err)
	}
	a := &tui.Artifact{Kind: handshake.KindPeerInfo, Data: []byte(line), Masked: true,
		Preview: fmt.Sprintf("cluster %s (%s), auth URL %s, token %s", info.ClusterName, info.ClusterID, info.AuthURL, info.MaskedToken()),
		FromID:  info.ClusterID, ForID: forID, Equivalent: flows.LiqoctlPeerCommand(info)}
	if info.AuthenticationDisabled {
		a.Warning = flows.AuthenticationDisabledWarning(info.AuthURL)
	}
	return a, nil
}

func legacyResult(r *flows.LegacyResult) *tui.LegacyResult {
	return &tui.LegacyResult{ConsumerID: r.ConsumerID, ProviderID: r.ProviderID, ByTool: r.ByTool, AlreadyAuthenticated: r.AlreadyAuthenticated,
		IdentitySecret: r.IdentitySecret, User: r.User, Groups: r.Groups, Issued: r.Issued, NotAfter: r.NotAfter,
		TLSVerified: r.TLSVerified, AuthenticationDisabled: r.AuthenticationDisabled}
}

// legacyHints say what to do about each refusal of a 0.x provider.
var legacyHints = map[liqo0x.Refusal]string{
	liqo0x.WrongToken: "copy the peer info again on the provider (it changes when Secret auth-token is re-created); nothing was written",
	liqo0x.AlreadyIssued: "a Liqo 0.x provider issues one identity per cluster ID: choose to reissue (with the provider's kubeconfig) " +
		"or ask its admin to delete Secret liqo-remote-certificate in this consumer's tenant namespace there",
	liqo0x.Unreachable:  "the consumer must reach the provider's auth URL: check the address and firewalls, or give the provider's auth URL (--auth-url)",
	liqo0x.Incompatible: "Liqo v0.3 and v0.4+ cannot authenticate each other: upgrade the v0.3 cluster to Liqo v0.4 or later",
}

// explainLegacy is explainErr plus the class of a 0.x provider's refusal
// and what to do about it.
func explainLegacy(err error) error {
	if err == nil {
		return nil
	}
	e := explainErr(err)
	var f *tui.Failure
	if !errors.As(e, &f) {
		return e
	}
	if r := legacyRefusal(err); r != "" {
		f.Refusal = string(r)
		if hint := legacyHints[r]; hint != "" {
			f.Hint = hint
		}
	}
	return f
}

func legacyRefusal(err error) liqo0x.Refusal {
	var refused *flows.LegacyRefusedError
	var authErr *liqo0x.AuthError
	var failure *liqo0x.AuthFailure
	switch {
	case errors.As(err, &refused):
		return refused.Refusal
	case errors.As(err, &authErr):
		return authErr.Refusal
	case errors.As(err, &failure):
		return failure.Refusal
	}
	return ""
}

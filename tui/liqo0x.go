package tui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Liqo 0.x: when the provider runs Liqo 0.x, the wizard runs its token
// authentication instead of the v1 handshake. Automated: a confirmation
// (liqo0x_confirm.go), then AuthenticateLiqo0x. Manual provider: the peer
// info is handed over like the nonce. Manual consumer: the receive screen
// of the nonce also takes a peer info, then the same confirmation and
// ApplyPeerInfo. Both end on the 0.x summary (liqo0x_summary.go).

// Liqo0xAuthenticator is Liqo 0.x's shared-token authentication, the
// operations of this file (the receive screen checks a pasted peer info
// through ArtifactChecker).
type Liqo0xAuthenticator interface {
	// PeerInfo gathers the provider's peer info (ID, name, auth URL,
	// token): a Masked KindPeerInfo Artifact.
	PeerInfo(ctx context.Context, provider ClusterRef, sink handshake.Sink) (*Artifact, error)
	// ApplyPeerInfo authenticates consumer with the 0.x provider the peer
	// info names: through the consumer's own Liqo 0.x, or with this tool as
	// the 0.x consumer when the consumer has no Liqo.
	ApplyPeerInfo(ctx context.Context, consumer ClusterRef, data []byte, o Liqo0xOptions, sink handshake.Sink) (*Liqo0xResult, error)
	// AuthenticateLiqo0x is the automated 0.x flow (both reachable).
	AuthenticateLiqo0x(ctx context.Context, consumer, provider ClusterRef, o Liqo0xOptions, sink handshake.Sink) (*Liqo0xResult, error)
}

// PairJudge says whether a consumer and a provider can authenticate at
// all, which decides the route the wizard takes (refusal).
type PairJudge interface {
	// PairProblem says in one line why the consumer and the provider
	// cannot authenticate (their Liqo generations) and what to do; "" = they
	// can. It reads only its arguments (no network): View may call it.
	PairProblem(consumer, provider *ClusterInfo) string
}

// gotoLiqo0xConfirmMsg asks the admin before the consumer authenticates:
// art and data are the peer info received (manual), nil in automated mode.
type gotoLiqo0xConfirmMsg struct {
	art  *Artifact
	data []byte
}

// alreadyIssued tells whether err is a 0.x provider's refusal because it
// already issued this consumer's identity.
func alreadyIssued(err error) bool {
	var f *Failure
	return errors.As(err, &f) && f.AlreadyIssued
}

// route is how the pair in use authenticates, as the probe of its provider
// told (automated: per the roles; manual: the cluster in use when it plays
// the provider); "" when not known: a manual consumer cannot tell, its
// receive screen takes a nonce or a peer info.
func (s *session) route() handshake.Route {
	var provider *ClusterInfo
	switch {
	case s.mode == ModeAutomated:
		_, provider = s.provider()
	case s.mode == ModeManual && s.selfRole() == handshake.RoleProvider:
		provider = s.selfInfo()
	}
	if provider == nil {
		return ""
	}
	return provider.Route
}

// refusal is why the pair in use cannot authenticate, in the backend's
// words: automated, the pair's problem; manual, a provider this tool
// cannot authenticate with. "" when it can, or cannot be told yet.
func (s *session) refusal() string {
	switch s.mode {
	case ModeAutomated:
		_, consumer := s.consumer()
		_, provider := s.provider()
		if consumer != nil && provider != nil {
			var judge PairJudge = s.backend
			return judge.PairProblem(consumer, provider)
		}
	case ModeManual:
		if info := s.selfInfo(); s.selfRole() == handshake.RoleProvider && info != nil {
			return info.Unsupported
		}
	}
	return ""
}

// liqo0xFlow tells whether the wizard runs the Liqo 0.x flow: the pair's
// route, unless the pair is refused.
func (s *session) liqo0xFlow() bool {
	return s.route() == handshake.RouteLiqo0x && s.refusal() == ""
}

// consumerRunsLiqo0x tells whether the consumer runs Liqo 0.x itself (its
// Liqo authenticates); else this tool is the 0.x consumer.
func (s *session) consumerRunsLiqo0x() bool {
	info := s.selfInfo()
	if s.mode == ModeAutomated {
		_, info = s.consumer()
	}
	return info != nil && info.Liqo0x
}

// liqo0xFlowLine says on the detect screen how the 0.x flow goes.
func (s *session) liqo0xFlowLine() string {
	switch {
	case s.mode == ModeManual:
		return "the provider's peer info (cluster ID, auth URL, token) goes to the consumer's admin, by clipboard, file or print; no nonce, Tenant or Identity."
	case s.consumerRunsLiqo0x():
		return "the consumer's own Liqo 0.x sends the provider's token to its liqo-auth server and gets an identity; no nonce, Tenant or Identity."
	}
	return "this tool, as the consumer's Liqo 0.x would, sends the provider's token with a certificate request to its liqo-auth server; no nonce, Tenant or Identity."
}

// liqo0xIDs are the consumer's and the provider's IDs of the 0.x flow.
func (s *session) liqo0xIDs(art *Artifact) (consumer, provider string) {
	if s.mode == ModeAutomated {
		_, c := s.consumer()
		_, p := s.provider()
		return idOf(c), idOf(p)
	}
	consumer, provider = s.ownID(), s.peerID
	if art != nil && art.FromID != "" {
		provider = art.FromID
	}
	return orDefault(consumer, "?"), orDefault(provider, "?")
}

// opPeerInfo gathers the provider's peer info and hands it over.
func opPeerInfo(s *session) operation {
	var liqo0x Liqo0xAuthenticator = s.backend
	self := s.self()
	return operation{
		Title: "Gathering the Liqo 0.x peer info of provider " + idOf(s.selfInfo()),
		Phases: []phase{{Title: "Peer info",
			Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
				return liqo0x.PeerInfo(ctx, self, sink)
			},
			Apply: func(s *session, v any) { s.peerInfo = v.(*Artifact) }}},
		Then: func(s *session) tea.Cmd { return navigate(gotoHandoffMsg{art: s.peerInfo}) },
	}
}

// opAuthenticateLiqo0x is the automated 0.x flow with the admin's options;
// refused as already issued, it offers to run again with Reissue.
func opAuthenticateLiqo0x(s *session, o Liqo0xOptions) operation {
	var liqo0x Liqo0xAuthenticator = s.backend
	consumer, cinfo := s.consumer()
	provider, pinfo := s.provider()
	title := fmt.Sprintf("Liqo 0.x: authenticating consumer %s with provider %s", idOf(cinfo), idOf(pinfo))
	if o.Reissue {
		title = fmt.Sprintf("Liqo 0.x: deleting the identity provider %s issued to %s, then authenticating again", idOf(pinfo), idOf(cinfo))
	}
	return operation{
		Title: title,
		Phases: []phase{{Title: "Authenticate with the provider's liqo-auth server",
			Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
				return liqo0x.AuthenticateLiqo0x(ctx, consumer, provider, o, sink)
			},
			Apply: func(s *session, v any) { s.liqo0xResult, s.liqo0xOpts = v.(*Liqo0xResult), o }}},
		Then: goTo(gotoSummaryMsg{}),
		Reissue: func(s *session) operation {
			again := o
			again.Reissue = true
			return opAuthenticateLiqo0x(s, again)
		},
	}
}

// opApplyPeerInfo authenticates the consumer in use with the peer info
// received (manual mode: no reissue, the provider is out of reach).
func opApplyPeerInfo(s *session, art *Artifact, data []byte, o Liqo0xOptions) operation {
	var liqo0x Liqo0xAuthenticator = s.backend
	self := s.self()
	_, provider := s.liqo0xIDs(art)
	return operation{
		Title: "Liqo 0.x: authenticating with provider " + provider,
		Phases: []phase{{Title: "Apply the peer info",
			Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
				return liqo0x.ApplyPeerInfo(ctx, self, data, o, sink)
			},
			Apply: func(s *session, v any) { s.liqo0xResult, s.liqo0xOpts, s.peerInfo = v.(*Liqo0xResult), o, art }}},
		Then: goTo(gotoSummaryMsg{}),
	}
}

// warningBlock renders a warning loudly: error colour, bold, wrapped.
func warningBlock(text string, width int) string {
	return styleErr.Bold(true).Render(wrapWords(iconWarn+" "+text, max(width, 20)))
}

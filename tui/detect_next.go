package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Where the detect screen goes on to: the overview of the cluster's
// peerings first when it has some, else the handshake, by the pair's route.

// listPeerings reads the peerings of the cluster the overview would list,
// once per wizard: not after the admin left the overview for a new
// peering. A cluster that cannot be listed (a peering user's rights) has
// none to show: the wizard goes on as without.
func (d *detectScreen) listPeerings() tea.Cmd {
	s := d.s
	if s.overviewSeen {
		return navigate(peeringsMsg{gen: d.gen})
	}
	listed, id, other, _ := s.overviewClusters()
	if id == "" || id == "?" {
		return navigate(peeringsMsg{gen: d.gen})
	}
	d.listing = true
	gen, peerings := d.gen, d.peerings
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		rows, err := peerings.Overview(ctx, *listed, other)
		if err != nil {
			rows = nil
		}
		return peeringsMsg{gen: gen, rows: rows}
	}
}

// toOverview tells whether continuing shows the cluster's peerings first:
// not when the admin named the peer (--remote-cluster-id) and this
// cluster has no peering with it yet, since that asks for a new one.
func (d *detectScreen) toOverview() bool {
	s := d.s
	if d.listing || len(d.pending) > 0 || s.overviewSeen || len(s.peerings) == 0 {
		return false
	}
	if s.peerID == "" {
		return true
	}
	for _, r := range s.peerings {
		if r.RemoteID == s.peerID {
			return true
		}
	}
	return false
}

// next continues to the overview when the cluster has peerings, else to
// the handshake: automated checks where it stands first.
func (d *detectScreen) next() tea.Cmd {
	s := d.s
	if d.toOverview() {
		s.overviewSeen = true
		return navigate(gotoOverviewMsg{})
	}
	if s.liqo0xFlow() {
		// Liqo 0.x: the provider's peer info is not per consumer (no
		// peer to ask for), and automated mode confirms before sending.
		if s.mode == ModeManual {
			return runOp(opPeerInfo(s))
		}
		return navigate(gotoLiqo0xConfirmMsg{})
	}
	if s.mode == ModeManual {
		return navigate(gotoPeerMsg{})
	}
	d.checking = true
	consumer, _ := s.consumer()
	_, pinfo := s.provider()
	pid, stages := idOf(pinfo), d.stages
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		st, err := stages.Stage(ctx, consumer, handshake.RoleConsumer, pid)
		return stageMsg{stage: st, err: err}
	}
}

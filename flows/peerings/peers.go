package peerings

import (
	"context"
	"sort"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Peer is another cluster this one has handshake objects for.
type Peer = handshake.Peer

// Peers lists the clusters c has a tenant namespace for, with the stage
// of the handshake with each in role, sorted by ID. It lists each kind once
// (as Read does), however many peers there are.
func Peers(ctx context.Context, c *kube.Cluster, role handshake.Role) ([]Peer, error) {
	o, err := listPeeringObjects(ctx, c, "")
	if err != nil {
		return nil, err
	}
	var peers []Peer
	for id, p := range GroupByRemote(o) {
		if p.Namespace == nil {
			continue
		}
		st := ProviderStageOf(true, p.Tenant, p.Nonce)
		if role != handshake.RoleProvider {
			st = consumerStageOf(p.Kubeconfig != nil || p.Liqo0xKubeconfig != nil, true, p.SignedNonce != nil)
		}
		peers = append(peers, Peer{ID: id, Stage: st})
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].ID < peers[j].ID })
	return peers, nil
}

// StageOf reads how far the handshake with peerID got on c, playing role
// (the stages --batch and the wizard resume from).
func StageOf(ctx context.Context, c *kube.Cluster, role handshake.Role, peerID string) (handshake.Stage, error) {
	if role == handshake.RoleProvider {
		return ProviderStage(ctx, c, peerID)
	}
	return ConsumerStage(ctx, c, peerID)
}

package flows

import (
	"context"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Peer is another cluster this one has handshake objects for, and where
// the handshake with it stands here.
type Peer struct {
	ID    string
	Stage handshake.Stage
}

// Peers lists the clusters c has a tenant namespace for, with the stage
// of the handshake with each in role, sorted by ID.
func Peers(ctx context.Context, c *Cluster, role handshake.Role) ([]Peer, error) {
	list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: kube.TenantNamespaceLabel})
	if err != nil {
		return nil, c.Reach(err)
	}
	var peers []Peer
	for _, ns := range list.Items {
		id := ns.Labels[kube.RemoteClusterIDLabel]
		if id == "" {
			continue
		}
		st, err := StageOf(ctx, c, role, id)
		if err != nil {
			return nil, err
		}
		peers = append(peers, Peer{ID: id, Stage: st})
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].ID < peers[j].ID })
	return peers, nil
}

// StageOf reads how far the handshake with peerID got on c, playing role
// (the stages --batch and the wizard resume from).
func StageOf(ctx context.Context, c *Cluster, role handshake.Role, peerID string) (handshake.Stage, error) {
	if role == handshake.RoleProvider {
		return ProviderStage(ctx, c, peerID)
	}
	return ConsumerStage(ctx, c, peerID)
}

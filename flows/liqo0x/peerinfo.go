package liqo0x

import (
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// LiqoctlPeerCommand is the liqoctl command that hands the same peer info
// to a Liqo 0.x consumer (`liqoctl generate peer-command`'s output, §4):
// v0.3's `add cluster`, v0.4+'s `peer out-of-band`. It carries the token.
func LiqoctlPeerCommand(info *peerinfo.Info) string {
	name := info.ClusterName
	if name == "" {
		name = info.ClusterID
	}
	if info.Line == peerinfo.V03 {
		return "liqoctl add cluster " + name + " --auth-url " + info.AuthURL + " --id " + info.ClusterID + " --token " + info.Token
	}
	return "liqoctl peer out-of-band " + name + " --auth-url " + info.AuthURL + " --cluster-id " + info.ClusterID + " --auth-token " + info.Token
}

// MaskedPeerInfo is a copy of info whose token is masked, for screens and
// logs.
func MaskedPeerInfo(info *peerinfo.Info) *peerinfo.Info {
	c := *info
	c.Token = peerinfo.MaskToken(info.Token)
	return &c
}

// PeerInfo is a Liqo 0.x provider's peer info (ID, name, auth URL, token).
type PeerInfo = peerinfo.Info

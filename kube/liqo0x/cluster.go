// Package liqo0x is Liqo 0.x's token authentication, on both sides: the
// provider's peer info and auth Service, the HTTP client of its auth server,
// the consumer's ForeignCluster and identity Secret (with Liqo 0.x or with
// this tool as the consumer), and the leftovers of both
// (../shared/liqo-legacy-auth.md). The client-free peer info is in
// kube/liqo0x/peerinfo; which Liqo a cluster runs is kube.DetectRelease's.
package liqo0x

import "github.com/liqo-auth-tui/liqo-auth-tui/kube"

// Cluster is a kube.Cluster seen as a Liqo 0.x cluster: methods cannot be
// declared on kube's type from here.
type Cluster struct {
	*kube.Cluster
}

// On views c as a Liqo 0.x cluster: liqo0x.On(c).ApplyPeer(…).
func On(c *kube.Cluster) *Cluster { return &Cluster{c} }

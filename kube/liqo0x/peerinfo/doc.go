// Package peerinfo is what a Liqo 0.x provider hands a consumer (the peer
// info of liqo-legacy-auth.md §4) and the rules its fields follow: plain
// types and checks, without a Kubernetes client, so that the parsers of a
// pasted peer info (flows/artifact) build into small, fast-to-fuzz test
// binaries. Package kube (detection) and kube/liqo0x build on these.
package peerinfo

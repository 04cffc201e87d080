// Package liqo0x is the application layer of Liqo 0.x's token
// authentication: the provider's peer info (GeneratePeerInfo), the
// consumer's authentication with it (CheckPeerInfo, ApplyPeerInfo,
// Authenticate), its undoing (Unauthenticate) and verify's look at a 0.x
// identity (VerifyIdentity). It sits below flows, which routes v1 vs 0.x
// (route.go) and calls into it; it never imports flows, so that the 0.x
// code can be read, tested and changed on its own. Cluster access is
// kube/liqo0x's, imported here as kliqo0x.
package liqo0x

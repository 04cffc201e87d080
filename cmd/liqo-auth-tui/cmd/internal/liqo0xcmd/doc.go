// Package liqo0xcmd tests liqo-auth-tui's Liqo 0.x commands (generate
// peer-info, apply peer-info, authenticate, --batch, verify, info,
// unauthenticate) as an admin types them, in-process, against REAL Liqo
// v0.10.1 components running on lab clusters. It has its own lab because
// Liqo 0.x's CRDs are cluster-scoped. Its tests carry the cluster build tag.
package liqo0xcmd

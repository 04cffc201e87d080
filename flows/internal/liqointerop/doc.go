// Package liqointerop holds cluster tests of this project against REAL Liqo
// v1.2.0 authentication reconcilers (liqo-peer, see kube/lab/realliqov1), in
// both directions: a Liqo consumer with our provider, and our consumer with
// a Liqo provider. Liqo's CRDs are cluster-scoped and make a cluster look
// as if Liqo were installed, so these tests need a lab of their own.
package liqointerop

// Package liqointerop holds cluster tests of this project against REAL Liqo
// v1 authentication reconcilers (liqo-peer, see internal/testlab/realliqov1) of
// every release in realliqov1.Releases, in both directions: a Liqo consumer
// with our provider, and our consumer with a Liqo provider, for the
// handshake, unauthenticate and ResourceSlices (with Liqo's crd-replicator).
// Each test runs once per release, as subtests named by it
// (TestOurConsumerLiqoProvider/v1.1.2); docs/interop.md keeps the matrix.
// Liqo's CRDs are cluster-scoped and make a cluster look as if Liqo were
// installed, so these tests need a lab of their own.
package liqointerop

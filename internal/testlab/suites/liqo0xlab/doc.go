// Package liqo0xlab holds the smoke tests of the Liqo 0.x harness
// (internal/testlab/realliqo0x): REAL Liqo v0.10.1 components run out of cluster
// against lab API servers answer as §10 of ../shared/liqo-legacy-auth.md
// says. Liqo 0.x's CRDs are cluster-scoped and make a cluster look as if
// Liqo 0.x were installed, so these tests need a lab of their own.
package liqo0xlab

// Package architecture checks, with go list, the import rules that
// docs/architecture.md states: which way imports go, what the front-ends and
// tui may see, and that test infrastructure stays out of the product.
package architecture

// Package barelab holds cluster tests of the flows against a provider on
// which `liqo-auth-tui init` never ran: the authentication.liqo.io CRDs are
// cluster-scoped, so these tests need a lab of their own, which no other
// test of the flows initialises.
package barelab

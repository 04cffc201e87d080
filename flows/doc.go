// Package flows is the handshake as steps: the automated flow over two
// clusters, the per-role manual steps, and unauthenticate. It reports
// progress as handshake.Events and leaves rendering to the front-ends
// (the wizard, the commands).
package flows

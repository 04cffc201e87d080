// Package handshake is the vocabulary shared by the wizard (tui), the flows
// and the commands: which side a cluster plays (Role), which cluster a step
// acts on (Scope), the progress events of a running flow (Event) and how far
// a handshake got (Stage). It depends on nothing but the standard library
// and apimachinery's duration helper (itself standard library only), so
// that tui can import it and still never import client-go.
package handshake

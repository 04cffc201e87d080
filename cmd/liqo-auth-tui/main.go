// Command liqo-auth-tui authenticates two Liqo clusters: a wizard, a batch
// mode and step commands. Run as kubectl-liqo_auth it is the kubectl
// plugin `kubectl liqo-auth`.
package main

import (
	"os"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func main() {
	w := cmd.NewWizard(tui.Run)
	os.Exit(w.ExitCode(cmd.ExecuteAs(os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr, w.Interactive)))
}

// Command liqo-auth-tui authenticates two Liqo clusters: a wizard, a batch
// mode and step commands.
package main

import (
	"os"

	"github.com/liqo-auth-tui/liqo-auth-tui/batch"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func main() {
	w := batch.NewWizard(tui.Run)
	os.Exit(w.ExitCode(batch.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, w.Interactive)))
}

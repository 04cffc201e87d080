// Command liqo-auth-tui authenticates two Liqo clusters: a wizard, a batch
// mode and step commands.
package main

import (
	"os"

	"github.com/liqo-auth-tui/liqo-auth-tui/batch"
)

func main() {
	os.Exit(batch.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}

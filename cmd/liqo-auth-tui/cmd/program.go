package cmd

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// The binary answers to three names: its own; kubectl-liqo_auth, which
// krew installs (a link) and kubectl runs for `kubectl liqo-auth`; and
// kubectl_complete-liqo_auth, which kubectl (≥ 1.26) runs from PATH to
// complete `kubectl liqo-auth …` (a link to the same binary).
const (
	pluginExecutable     = "kubectl-liqo_auth"
	pluginCompletionName = "kubectl_complete-liqo_auth"
	pluginCommand        = "kubectl liqo-auth"
)

// programName is how help, usage lines, errors and the commands printed
// for an admin name the program: the binary's name, or `kubectl
// liqo-auth` when run as a kubectl plugin ("" = the binary's name).
type programName string

// say names the program in text as the admin called it.
func (p programName) say(text string) string {
	if p == "" || p == binaryName {
		return text
	}
	return strings.NewReplacer(binaryName+" ", string(p)+" ", "`"+binaryName+"`", "`"+string(p)+"`").Replace(text)
}

// programOf is the name the command tree's root goes by.
func programOf(c *cobra.Command) programName { return programName(c.Root().DisplayName()) }

// invocation is what argv[0] tells: the program's name, and whether
// kubectl asks for completions (kubectl_complete-liqo_auth ARGS... is
// `kubectl-liqo_auth __complete ARGS...`).
type invocation struct {
	name     programName
	complete bool
}

func invokedAs(argv0 string) invocation {
	base := filepath.Base(argv0)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".exe") { // Windows
		base = strings.TrimSuffix(base, ext)
	}
	switch base {
	case pluginExecutable:
		return invocation{name: pluginCommand}
	case pluginCompletionName:
		return invocation{name: pluginCommand, complete: true}
	}
	return invocation{name: binaryName}
}

// apply names root as invoked and returns the arguments cobra runs.
func (inv invocation) apply(root *cobra.Command, args []string) []string {
	if inv.name == binaryName {
		return args
	}
	// The executable's name: cobra's completion scripts call it by that
	// name; help, usage lines and errors say the display name.
	root.Use = pluginExecutable
	root.Annotations[cobra.CommandDisplayNameAnnotation] = string(inv.name)
	root.InitDefaultHelpFlag() // "help for kubectl liqo-auth"
	root.InitDefaultCompletionCmd()
	if completion, _, err := root.Find([]string{"completion"}); err == nil && completion != root {
		completion.Long += pluginCompletionHelp
	}
	if inv.complete {
		return append([]string{cobra.ShellCompRequestCmd}, args...)
	}
	return args
}

// pluginCompletionHelp: as a plugin, kubectl's own completion completes
// `kubectl liqo-auth …` by running kubectl_complete-liqo_auth.
const pluginCompletionHelp = `
As a kubectl plugin, ` + "`" + pluginCommand + " …`" + ` is completed by kubectl's own completion
(kubectl 1.26 or later, ` + "`kubectl completion SHELL`" + `), which runs ` + pluginCompletionName + `
from PATH: link it to this binary once, next to ` + pluginExecutable + `:

  ln -s "$(command -v ` + pluginExecutable + `)" "$(dirname "$(command -v ` + pluginExecutable + `)")/` + pluginCompletionName + `"

The scripts below complete ` + pluginExecutable + ` when it is run by that name.
`

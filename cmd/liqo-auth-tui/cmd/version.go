package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version"
)

const binaryName = "liqo-auth-tui"

// VersionOptions run `liqo-auth-tui version`.
type VersionOptions struct {
	*Options
	Output string
}

func newVersionCommand(o *Options) *cobra.Command {
	opts := &VersionOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision and Go version of this build",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addOutputFlag(cmd, &opts.Output)
	return cmd
}

// Run prints the build's version line, or its details as YAML or JSON.
func (o *VersionOptions) Run(context.Context) error {
	info := version.Info()
	if o.Output != "" {
		return o.printObject(o.Output, info)
	}
	_, err := fmt.Fprintln(o.Printer.Out, info.String(binaryName))
	return err
}

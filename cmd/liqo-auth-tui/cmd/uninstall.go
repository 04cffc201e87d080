package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func newUninstallCommand(o *Options) *cobra.Command {
	opts := &InstallOptions{Options: o}
	uninstall := &cobra.Command{Use: "uninstall", Short: "Remove a component (controller)", Args: cobra.NoArgs}
	uninstall.AddCommand(&cobra.Command{
		Use:   "controller",
		Short: "Remove the in-cluster controller (CRDs, cluster ID, keys and peerings stay)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Uninstall(cmd.Context()) },
	})
	return uninstall
}

// Uninstall removes the controller.
func (o *InstallOptions) Uninstall(ctx context.Context) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	c, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	changes, err := flows.RemoveController(ctx, c)
	for _, ch := range changes {
		o.Printer.Info(handshake.Local, "%s", ch)
	}
	return err
}

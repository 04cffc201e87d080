package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// InstallOptions install or remove (uninstall.go) the in-cluster controller.
type InstallOptions struct {
	*Options
	Image string
}

func newInstallCommand(o *Options) *cobra.Command {
	opts := &InstallOptions{Options: o}
	install := &cobra.Command{Use: "install", Short: "Install a component (controller)", Args: cobra.NoArgs}
	ic := &cobra.Command{
		Use:   "controller",
		Short: "Install the in-cluster controller (server-side apply of the embedded manifests)",
		Long: `Applies the manifests of assets/deploy (the same as kubectl apply -k assets/deploy):
the authentication.liqo.io CRDs, Liqo's consumer ClusterRoles, and the liqo-auth
controller (ServiceAccount, least-privilege RBAC, a 2-replica Deployment) in the Liqo namespace.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Install(cmd.Context()) },
	}
	ic.Flags().StringVar(&opts.Image, "image", flows.ControllerImage, "controller image")
	install.AddCommand(ic)
	return install
}

// Install applies the controller manifests.
func (o *InstallOptions) Install(ctx context.Context) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	c, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	_, err = flows.InstallController(ctx, c, o.Image, o.Printer.sink)
	return err
}

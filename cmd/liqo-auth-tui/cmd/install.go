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
	// Wait for the controller's Pods (--wait, the default).
	Wait bool
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
	ic.Flags().BoolVar(&opts.Wait, "wait", true, "wait for a Ready Pod of the controller to hold its Lease (a cluster without a Ready Node is not waited for)")
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
	_, err = flows.InstallController(ctx, c, flows.InstallControllerOptions{Image: o.Image, NoWait: !o.Wait}, o.Printer.sink)
	return err
}

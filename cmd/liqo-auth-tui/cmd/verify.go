package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// VerifyOptions: consumer side, prove the kubeconfig Secret works.
type VerifyOptions struct {
	*Options
	ProviderID string
	Output     string
}

func newVerifyCommand(o *Options) *cobra.Command {
	opts := &VerifyOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Consumer: reach the provider with the kubeconfig Secret and show who it is and what it may do",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addRemoteClusterIDFlag(cmd, &opts.ProviderID, "provider")
	addOutputFlag(cmd, &opts.Output)
	return cmd
}

// Run verifies and prints the result.
func (o *VerifyOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "", "yaml", "json"); err != nil {
		return err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	v, err := flows.Verify(ctx, consumer, o.ProviderID)
	if err != nil {
		return err
	}
	if o.Output != "" {
		return o.printObject(o.Output, v)
	}
	w := o.Printer.Out
	fmt.Fprintf(w, "Provider API server: %s\nAuthenticated as:    %s %v\nTenant namespace:    %s\n", v.Server, v.User, v.Groups, v.TenantNamespace)
	fmt.Fprintf(w, "Allowed (%d):\n  %s\nDenied (%d):\n  %s\n", len(v.Allowed), strings.Join(v.Allowed, "\n  "), len(v.Denied), strings.Join(v.Denied, "\n  "))
	return nil
}

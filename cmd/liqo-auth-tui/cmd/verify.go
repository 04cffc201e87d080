package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
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
	v, err := o.verify(ctx)
	if o.Output != "" || err != nil {
		return o.printResult(o.Output, v, err) // a failure too is an object on stdout
	}
	w, now := o.Printer.Out, time.Now()
	if v.Unreached != "" {
		// Through the in-band proxy, from outside Liqo's fabric: said, not failed.
		fmt.Fprintf(w, "Provider API server: %s\nTenant namespace:    %s\n", v.Server, v.TenantNamespace)
		fmt.Fprintf(w, "Certificate expires: %s\nLast renewal:        %s\n", certificateExpiryText(v.CertificateNotAfter, now), lastRenewalAgo(v.LastRenewal, now))
		fmt.Fprintf(w, "Not verified:        %s\n", v.Unreached)
		return nil
	}
	fmt.Fprintf(w, "Provider API server: %s\nAuthenticated as:    %s %v\nTenant namespace:    %s\n", v.Server, v.User, v.Groups, v.TenantNamespace)
	fmt.Fprintf(w, "Certificate expires: %s\nLast renewal:        %s\n", certificateExpiryText(v.CertificateNotAfter, now), lastRenewalAgo(v.LastRenewal, now))
	fmt.Fprintf(w, "Allowed (%d):\n  %s\nDenied (%d):\n  %s\n", len(v.Allowed), strings.Join(v.Allowed, "\n  "), len(v.Denied), strings.Join(v.Denied, "\n  "))
	return nil
}

func (o *VerifyOptions) verify(ctx context.Context) (*flows.Verification, error) {
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return nil, err
	}
	return flows.Verify(ctx, consumer, o.ProviderID, o.Printer.sink)
}

// certificateExpiryText shows when the certificate expires and how long that is from now.
func certificateExpiryText(notAfter, now time.Time) string {
	if notAfter.IsZero() {
		return "unknown (neither the kubeconfig's certificate nor the Identity's is readable)"
	}
	return notAfter.UTC().Format(time.RFC3339) + " (" + handshake.ExpiresIn(notAfter, now) + ")"
}

// lastRenewalText shows the last renewal applied, or that there was none.
func lastRenewalText(at time.Time) string {
	if at.IsZero() {
		return "never"
	}
	return at.UTC().Format(time.RFC3339)
}

// lastRenewalAgo is lastRenewalText with how long ago it was, as the
// wizard's summary says it.
func lastRenewalAgo(at, now time.Time) string {
	if at.IsZero() {
		return lastRenewalText(at)
	}
	return lastRenewalText(at) + " (" + handshake.Ago(at, now) + ")"
}

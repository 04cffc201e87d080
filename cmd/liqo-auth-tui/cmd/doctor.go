package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// DoctorOptions: check a cluster's peerings, say what is broken and how
// to fix it, and fix what can be fixed here.
type DoctorOptions struct {
	*Options
	RemoteID string
	Remote   ClusterFlags
	Output   string
	Fix, Yes bool
}

func newDoctorCommand(o *Options) *cobra.Command {
	opts := &DoctorOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check this cluster's peerings: what is broken, why, and the command that fixes it",
		Long: `Runs a list of checks on this cluster (IDs and keys, CRDs, the controller and its Lease,
CSRs) and on every peering (or the one of --remote-cluster-id): the Tenant, Identity and
kubeconfig, whether the provider accepts the kubeconfig, whether the advertised address
answers, the certificate's expiry and its renewal path, replication, the Tenant's condition,
and Liqo 0.x's traps. Each check prints ✓ or ✗; every ✗ has its cause in one line and the
exact command that fixes it. With --remote-kubeconfig the remote is checked too, and so are
the checks that need both sides. Exits 1 when a check fails.

--fix applies the fixes doctor can make itself (re-authenticate an expired or revoked pair
keeping its ResourceSlices, re-create missing bindings, remove stale CSRs, restart a stuck
handshake): it shows each plan, asks (--yes: without asking; needed without a terminal),
applies it, and checks again.`,
		Example: `  liqo-auth-tui doctor
  liqo-auth-tui doctor --remote-cluster-id cluster-b --remote-kubeconfig provider.yaml
  liqo-auth-tui doctor -o json
  liqo-auth-tui doctor --remote-kubeconfig provider.yaml --fix`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	cmd.Flags().StringVar(&opts.RemoteID, "remote-cluster-id", "", "check only the peering with this cluster")
	cmd.Flags().StringVar(&opts.Remote.Kubeconfig, "remote-kubeconfig", "", "kubeconfig of the remote cluster, to check both sides")
	cmd.Flags().StringVar(&opts.Remote.Context, "remote-context", "", "kubeconfig context of the remote cluster")
	cmd.Flags().StringVar(&opts.Remote.LiqoNamespace, "remote-liqo-namespace", flows.DefaultLiqoNamespace, "Liqo namespace of the remote cluster")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: text, yaml or json")
	cmd.Flags().BoolVar(&opts.Fix, "fix", false, "apply the fixes doctor can make itself, each after its plan is shown")
	addYesFlags(cmd, &opts.Yes)
	return cmd
}

// ChecksFailedError: doctor ran and some checks failed (exit 1).
type ChecksFailedError struct{ Failed int }

func (e *ChecksFailedError) Error() string {
	if e.Failed == 1 {
		return "1 check failed"
	}
	return fmt.Sprintf("%d checks failed", e.Failed)
}

// Run checks, prints, and with --fix repairs and checks again.
func (o *DoctorOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "text", "yaml", "json"); err != nil {
		return err
	}
	if o.Fix && o.Output != "text" {
		return usagef("--fix shows plans and asks: use it with -o text")
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	local, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	localRef, remoteRef := o.Local.ref(), o.Remote.ref()
	opts := doctor.Options{RemoteID: o.RemoteID, LocalRef: &localRef, RemoteRef: &remoteRef}
	if o.Remote.Kubeconfig != "" || o.Remote.Context != "" {
		if opts.Remote, err = o.connectReachable(ctx, o.Remote); err != nil {
			return flows.Scoped(handshake.Remote, err)
		}
	}
	d, err := doctor.Run(ctx, local, opts)
	if err != nil {
		return err
	}
	if o.Output != "text" {
		if err := o.printObject(o.Output, d); err != nil {
			return err
		}
		return checksFailed(d)
	}
	printDiagnosis(o.Printer.Out, d, opts.Remote != nil, o.Printer.program)
	if !o.Fix || len(d.Repairs()) == 0 {
		return checksFailed(d)
	}
	if err := o.repair(ctx, d); err != nil {
		return err
	}
	if d, err = doctor.Run(ctx, local, opts); err != nil {
		return err
	}
	fmt.Fprintln(o.Printer.Out, "\nAfter the fixes:")
	printDiagnosis(o.Printer.Out, d, opts.Remote != nil, o.Printer.program)
	return checksFailed(d)
}

// repair shows each fix's plan, asks, and applies it.
func (o *DoctorOptions) repair(ctx context.Context, d *doctor.Diagnosis) error {
	confirm := o.confirmOptions(o.Yes)
	for _, c := range d.Repairs() {
		plan := o.Printer.program.say(fmt.Sprintf("Fix %q%s:\n  %s", c.Title, peeringSuffix(c), strings.Join(c.Repair.Plan, "\n  ")))
		if !confirm.Yes {
			if confirm.Confirm == nil {
				return o.notConfirmed("doctor --fix", flows.ErrNotConfirmed)
			}
			if !confirm.Confirm(plan) {
				o.Printer.Info(c.Scope, "skipped: %s", c.Title)
				continue
			}
		} else {
			fmt.Fprintln(o.Printer.Out, plan)
		}
		if err := doctor.ApplyRepair(ctx, c); err != nil {
			return flows.Scoped(c.Scope, err)
		}
		o.Printer.Info(c.Scope, "fixed: %s", c.Title)
	}
	return nil
}

func checksFailed(d *doctor.Diagnosis) error {
	if n := len(d.Failed()); n > 0 {
		return &ChecksFailedError{Failed: n}
	}
	return nil
}

func peeringSuffix(c doctor.Check) string {
	if c.RemoteID == "" {
		return ""
	}
	return " (peering with " + c.RemoteID + ")"
}

// printDiagnosis prints the cluster's checks, then each peering's under
// its heading: ✓/✗, scope (when both clusters were checked), title; for ✗
// its cause and fix.
func printDiagnosis(w io.Writer, d *doctor.Diagnosis, bothSides bool, program programName) {
	heading := "\x00"
	for _, c := range d.Checks {
		if c.RemoteID != heading {
			heading = c.RemoteID
			if heading == "" {
				fmt.Fprintf(w, "Cluster %s\n", dash(d.ClusterID))
			} else {
				fmt.Fprintf(w, "Peering with %s\n", heading)
			}
		}
		mark := "✓"
		if !c.OK {
			mark = "✗"
		}
		scope := ""
		if bothSides {
			scope = c.Scope.Prefix()
		}
		line := fmt.Sprintf("  %s %s%s", mark, scope, c.Title)
		if c.OK && c.Detail != "" {
			line += ": " + c.Detail
		}
		fmt.Fprintln(w, line)
		if !c.OK {
			fmt.Fprintf(w, "      cause: %s\n", program.say(c.Cause))
			if c.Fix != "" {
				fmt.Fprintf(w, "      fix:   %s\n", program.say(c.Fix))
			}
			if c.Repair != nil {
				fmt.Fprintln(w, "      (doctor --fix can do this)")
			}
		}
	}
}

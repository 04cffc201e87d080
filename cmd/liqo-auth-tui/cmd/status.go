package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
)

// StatusOptions: every peering of a cluster, both roles and generations.
type StatusOptions struct {
	*Options
	Remote ClusterFlags
	Output string
}

func newStatusCommand(o *Options) *cobra.Command {
	opts := &StatusOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show every peering of this cluster (consumer and provider, Liqo v1 and 0.x) and its health",
		Long: `Lists one row per remote cluster and role: the stage of the handshake, the Identity
and Tenant, the certificate's expiry and last renewal, the ResourceSlices (what was asked
and granted), the Tenant's condition and a health verdict (ok, pending, incomplete,
expiring, one-sided, cordoned, denied, drained, expired) with its reason. With
--remote-kubeconfig the remote is read too: only the peerings between the two clusters are
shown, each with the remote's side.`,
		Example: `  liqo-auth-tui status
  liqo-auth-tui status --remote-kubeconfig provider.yaml -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	cmd.Flags().StringVar(&opts.Remote.Kubeconfig, "remote-kubeconfig", "", "kubeconfig of the remote cluster, to read both sides")
	cmd.Flags().StringVar(&opts.Remote.Context, "remote-context", "", "kubeconfig context of the remote cluster")
	cmd.Flags().StringVar(&opts.Remote.LiqoNamespace, "remote-liqo-namespace", flows.DefaultLiqoNamespace, "Liqo namespace of the remote cluster")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "table", "output format: table, yaml or json")
	return cmd
}

// Run reads the overview and prints it.
func (o *StatusOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "table", "yaml", "json"); err != nil {
		return err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	local, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	var opts peerings.Options
	if o.Remote.Kubeconfig != "" || o.Remote.Context != "" {
		if opts.Remote, err = o.connectReachable(ctx, o.Remote); err != nil {
			return flows.Scoped(handshake.Remote, err)
		}
	}
	rows, err := peerings.Read(ctx, local, opts)
	if err != nil {
		return err
	}
	if o.Output != "table" {
		if rows == nil {
			rows = []handshake.Peering{} // [] rather than null
		}
		return o.printObject(o.Output, rows)
	}
	if len(rows) == 0 {
		o.Printer.Info(handshake.NoScope, "No peerings on this cluster")
		return nil
	}
	return printStatusTable(o.Printer.Out, rows, opts.Remote != nil)
}

// printStatusTable prints one line per row; withRemote adds the remote's
// stage.
func printStatusTable(out io.Writer, rows []handshake.Peering, withRemote bool) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	other := ""
	if withRemote {
		other = "\tREMOTE STAGE"
	}
	fmt.Fprintln(w, "REMOTE\tNAME\tROLE\tGEN\tBY\tSTAGE\tIDENTITY\tTENANT\tCONDITION\tCERT EXPIRES\tRENEWED\tSLICES\tREQUESTED\tGRANTED"+other+"\tHEALTH\tREASON")
	for _, r := range rows {
		identity, tenant, condition := r.PairStates()
		if withRemote {
			other = "\t" + dash(string(r.Remote.Stage))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\t%s\t%s\n", r.RemoteID, dash(r.RemoteName), dash(string(r.Role)),
			r.Generation, dash(r.MadeBy), dash(string(r.Stage)), dash(string(identity)), dash(string(tenant)), dash(condition),
			expiryCell(r.CertificateNotAfter), renewalCell(r), slicesCell(r.Slices),
			dash(formatQuantities(r.Requested)), dash(formatQuantities(r.Granted)), other, r.Health.Verdict, dash(r.Health.Reason))
	}
	return w.Flush()
}

func expiryCell(notAfter time.Time) string {
	if notAfter.IsZero() {
		return "-"
	}
	return notAfter.UTC().Format(time.RFC3339)
}

// renewalCell is the last renewal a consumer applied ("never"), "-" where
// the row has no certificate or is a provider's.
func renewalCell(r handshake.Peering) string {
	if r.CertificateNotAfter.IsZero() || r.Role != handshake.RoleConsumer {
		return "-"
	}
	return lastRenewalText(r.LastRenewal)
}

// slicesCell counts the slices and the denied ones.
func slicesCell(slices []flows.SliceStatus) string {
	if len(slices) == 0 {
		return "-"
	}
	denied := 0
	for _, s := range slices {
		if s.Denied() {
			denied++
		}
	}
	cell := strconv.Itoa(len(slices))
	if denied > 0 {
		cell += fmt.Sprintf(" (%d denied)", denied)
	}
	return cell
}

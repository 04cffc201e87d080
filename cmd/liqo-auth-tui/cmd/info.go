package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// InfoOptions print what the handshake knows about a cluster.
type InfoOptions struct {
	*Options
	Output string
}

func newInfoCommand(o *Options) *cobra.Command {
	opts := &InfoOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Show the cluster ID, key fingerprint, Liqo and controller presence of a cluster",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return opts.Run(cmd.Context()) },
	}
	addOutputFlag(cmd, &opts.Output)
	return cmd
}

func addOutputFlag(cmd *cobra.Command, out *string) {
	cmd.Flags().StringVarP(out, "output", "o", "", "output format: yaml or json (default: human-readable)")
}

// addResultOutputFlag is -o of the commands that change clusters: their
// result on stdout, the step lines still on stderr.
func addResultOutputFlag(fs *pflag.FlagSet, out *string) {
	fs.StringVarP(out, "output", "o", "", "print the result (or the failure) on stdout as yaml or json; step lines stay on stderr")
}

// printObject prints v as YAML or JSON on stdout.
func (o *Options) printObject(format string, v any) error {
	var b []byte
	var err error
	switch format {
	case "json":
		b, err = json.MarshalIndent(v, "", "  ")
		b = append(b, '\n')
	case "yaml":
		b, err = yaml.Marshal(v)
	default:
		return usagef("unknown output format %q: use yaml or json", format)
	}
	if err != nil {
		return err
	}
	_, err = o.Printer.Out.Write(b)
	return err
}

// printResult ends a command run with -o format: its result on stdout, or,
// when it failed, the failure as an object ({"error": ..., "hint": ...}),
// so that a script always reads one document; the error still goes to
// stderr and sets the exit code. Without -o it prints nothing.
func (o *Options) printResult(format string, result any, err error) error {
	if format == "" {
		return err
	}
	if err != nil {
		if perr := o.printObject(format, flows.FailureOf(err)); perr != nil {
			return errors.Join(err, perr)
		}
		return err
	}
	return o.printObject(format, result)
}

func checkOutputFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usagef("unknown output format %q: use %v", format, allowed)
}

// Run probes the cluster and prints the result.
func (o *InfoOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "", "json", "yaml"); err != nil {
		return err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	c, err := flows.Connect(o.Local.ref())
	if err != nil {
		return err
	}
	info, err := flows.Probe(ctx, c)
	if err != nil {
		return err
	}
	if info.AuthenticationDisabled {
		// On stderr, so that -o json/yaml stays parseable.
		o.Printer.Warn(handshake.NoScope, "%s", handshake.AuthenticationDisabledWarning(""))
	}
	pin := flows.ProviderPin(ctx, c, info)
	if o.Output != "" {
		return o.printObject(o.Output, infoView{ClusterInfo: info, ProviderFingerprint: pin})
	}
	return printInfoTable(o.Printer, c, info, pin)
}

func printInfoTable(p *Printer, c *flows.Cluster, info *flows.ClusterInfo, providerPin string) error {
	orNone := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	noID := "none (run `liqo-auth-tui init`)"
	if info.Restricted {
		noID = "not visible to this user"
	}
	w := tabwriter.NewWriter(p.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "Cluster ID:\t%s\n", orNone(info.ClusterID, noID))
	fmt.Fprintf(w, "API server:\t%s\n", info.APIServer)
	fmt.Fprintf(w, "Context:\t%s\n", orNone(flows.ContextOf(c), "-"))
	fmt.Fprintf(w, "Authenticated as:\t%s %v\n", info.User, info.Groups)
	generation := flows.FlavorLine(info)
	installed := yesNo(info.LiqoInstalled)
	if flows.RunsLiqo0x(info.LiqoRelease) {
		// LiqoInstalled is about Liqo v1 (JSON keeps it so).
		installed = generation
	}
	fmt.Fprintf(w, "Liqo installed:\t%s\n", installed)
	fmt.Fprintf(w, "Liqo generation:\t%s\n", generation)
	if info.AuthenticationDisabled {
		fmt.Fprintf(w, "Liqo authentication:\tDISABLED\n") // the warning above says what it means
	}
	if info.Restricted {
		// A peering user (§9.4) may not read the keys nor the Lease.
		fmt.Fprintf(w, "Restricted user:\tkey fingerprint and controller not visible\n")
		return w.Flush()
	}
	fmt.Fprintf(w, "liqo-auth controller:\t%s\n", yesNo(info.Controller))
	fmt.Fprintf(w, "Key algorithm:\t%s\n", orNone(info.KeyAlgorithm, "none (run `liqo-auth-tui init`)"))
	fmt.Fprintf(w, "Key fingerprint:\t%s\n", orNone(info.KeyFingerprint, "-"))
	if providerPin != "" {
		fmt.Fprintf(w, "Provider fingerprint:\t%s\n", providerPin)
	}
	return w.Flush()
}

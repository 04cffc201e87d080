// Package cmd is the non-interactive front-end: the cobra command tree
// (step commands, init, info) that scripts and CI call, rendering the same
// flows the wizard renders.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// ClusterFlags select one cluster, like kubectl's flags.
type ClusterFlags struct {
	Kubeconfig    string
	Context       string
	LiqoNamespace string
	// ProxyURL is the proxy to reach the cluster through when its kubeconfig
	// sets none: not a flag of its own (authenticate's --proxy-url).
	ProxyURL string
}

// Options are the flags every command shares.
type Options struct {
	Local   ClusterFlags
	Timeout time.Duration
	Verbose bool
	Session SessionFlags // root-only flags: wizard and --batch
	// BatchSlice asks for a ResourceSlice once --batch authenticated.
	BatchSlice BatchSliceFlags
	Printer    *Printer
	In         io.Reader // standard input, for "-f -" and "--nonce-file -"

	// Liqo0xSession: --batch's Liqo 0.x flags (liqo0x_routing.go).
	Liqo0xSession Liqo0xSessionFlags
}

// ref is the cluster the flags select.
func (f ClusterFlags) ref() flows.ClusterRef {
	return flows.ClusterRef{Kubeconfig: f.Kubeconfig, Context: f.Context, Namespace: f.LiqoNamespace, ProxyURL: f.ProxyURL}
}

// NewRootCommand builds the command tree; interactive runs when the tool is
// called with no subcommand (the wizard, injected by main to keep this
// package free of UI code).
func NewRootCommand(o *Options, interactive func(cmd *cobra.Command, o *Options) error) *cobra.Command {
	// --version prints the same line as `version`. Not through cobra's
	// Version: that prints "<name> version <Version>", and the
	// SetVersionTemplate it would take links text/template, whose method
	// lookup by name makes the linker keep every exported method of every
	// type (every API group of client-go's Clientset): a 66 instead of a
	// 39 MB release binary (docs/benchmarks.md).
	var showVersion bool
	root := &cobra.Command{
		Use:   "liqo-auth-tui",
		Short: "Authenticate two Liqo clusters: a wizard, batch mode and step commands",
		Long: `Authenticate a Liqo consumer with a provider.

With no command, liqo-auth-tui starts the wizard: give the kubeconfig of the
cluster you manage, and the other cluster's too if this workstation reaches
it. --batch does the same without a terminal; the commands below run one
step or one check each.`,
		Example: `  # The wizard, on the cluster you manage
  liqo-auth-tui --kubeconfig consumer.yaml

  # Both clusters at hand, no terminal: the whole handshake
  liqo-auth-tui --batch --kubeconfig consumer.yaml --remote-kubeconfig provider.yaml

  # What is broken in this cluster's peerings, and the command that fixes it
  liqo-auth-tui doctor`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if showVersion {
				return nil // as cobra's --version, which ignores the rest
			}
			return cobra.NoArgs(cmd, args)
		},
		Annotations: map[string]string{resumesAnnotation: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showVersion {
				_, err := fmt.Fprintln(o.Printer.Out, version.String(binaryName))
				return err
			}
			if err := o.Session.checkPins(); err != nil {
				return err
			}
			if o.Session.Batch {
				return (&BatchOptions{Options: o, root: cmd}).Run(cmd.Context())
			}
			if o.Session.Output != "" {
				return usagef("-o/--output is for --batch: the wizard shows its results itself")
			}
			if !isTerminal(o) {
				return usagef("not a terminal: use --batch or a subcommand")
			}
			if interactive == nil {
				return cmd.Help()
			}
			return interactive(cmd, o)
		},
	}
	root.Flags().BoolVar(&showVersion, "version", false, "print the version of this build (as the version command)")
	addSessionFlags(root, &o.Session)
	addBatchSliceFlags(root, &o.BatchSlice)
	addLiqo0xSessionFlags(root, &o.Liqo0xSession)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	pf := root.PersistentFlags()
	pf.StringVar(&o.Local.Kubeconfig, "kubeconfig", "", "path to the kubeconfig of the local cluster (default: KUBECONFIG or ~/.kube/config)")
	pf.StringVar(&o.Local.Context, "context", "", "kubeconfig context of the local cluster")
	pf.StringVar(&o.Local.LiqoNamespace, "liqo-namespace", flows.DefaultLiqoNamespace, "namespace where Liqo (or this tool's objects) live")
	pf.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long the command may take")
	pf.BoolVarP(&o.Verbose, "verbose", "v", false, "also print client-go's and the controllers' logs")
	root.AddCommand(newInitCommand(o), newInfoCommand(o),
		newAuthenticateCommand(o), newUnauthenticateCommand(o),
		newCreateCommand(o), newGetCommand(o), newGenerateCommand(o), newApplyCommand(o), newVerifyCommand(o), newDeleteCommand(o),
		newStatusCommand(o), newDoctorCommand(o))
	root.AddCommand(newCordonCommand(o), newUncordonCommand(o), newDrainCommand(o), newActivateCommand(o))
	root.AddCommand(newInstallCommand(o), newUninstallCommand(o))
	root.AddCommand(newVersionCommand(o))
	setUpHelp(root)
	return root
}

// Execute runs the command line and returns the process exit code.
func Execute(args []string, stdin io.Reader, stdout, stderr io.Writer, interactive func(*cobra.Command, *Options) error) int {
	return ExecuteAs(binaryName, args, stdin, stdout, stderr, interactive)
}

// ExecuteAs is Execute for the program invoked as argv0 (os.Args[0]): as
// kubectl-liqo_auth it is `kubectl liqo-auth` (program.go).
func ExecuteAs(argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer, interactive func(*cobra.Command, *Options) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return executeAs(ctx, invokedAs(argv0), args, stdin, stdout, stderr, interactive)
}

// execute is Execute until ctx ends (SIGINT, SIGTERM).
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, interactive func(*cobra.Command, *Options) error) int {
	return executeAs(ctx, invokedAs(binaryName), args, stdin, stdout, stderr, interactive)
}

func executeAs(ctx context.Context, inv invocation, args []string, stdin io.Reader, stdout, stderr io.Writer, interactive func(*cobra.Command, *Options) error) int {
	o := &Options{Printer: &Printer{Out: stdout, Err: stderr, program: inv.name}, In: stdin}
	root := NewRootCommand(o, interactive)
	root.PersistentPreRun = func(*cobra.Command, []string) {
		if !o.Verbose {
			quietKlog()
		}
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(inv.apply(root, args)) // after SetOut: cobra's completion command keeps the writer it was made with
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && isCobraUsageError(err) {
		err = &UsageError{Err: err}
	}
	interrupted := ctx.Err() != nil && err != nil
	if err != nil {
		if interrupted {
			o.Printer.Error(handshake.NoScope, "%s", interruptedLine(cmd))
		} else if !alreadyReported(err) {
			o.Printer.Error(handshake.NoScope, "%v", err)
		}
	}
	return ExitCode(err, interrupted)
}

// resumesAnnotation marks the commands whose re-run resumes where an
// interrupted run stopped (every step idempotent): authenticate, and the
// root (the wizard, --batch).
const resumesAnnotation = "liqo-auth-tui/resumes"

// interruptedLine is the last line of an interrupted command.
func interruptedLine(cmd *cobra.Command) string {
	if cmd != nil && cmd.Annotations[resumesAnnotation] != "" {
		return "interrupted: run the same command again to resume"
	}
	return "interrupted"
}

// isCobraUsageError recognises cobra's argument and command errors, which
// it returns as plain errors.
func isCobraUsageError(err error) bool {
	var usage *UsageError
	if errors.As(err, &usage) {
		return false
	}
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "accepts ", "requires ", "unknown flag", "unknown shorthand", "invalid argument", "required flag"} {
		if len(msg) >= len(prefix) && msg[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// withTimeout bounds a command by --timeout.
func (o *Options) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, o.Timeout)
}

// quietKlog drops client-go's own logging (leader election, retries), which
// would break the one-line-per-step output scripts rely on. klog's logger is
// process-wide and not safe to swap while other goroutines log, so it is
// set once (tests run many commands in one process).
var quietKlog = sync.OnceFunc(func() { klog.SetLogger(logr.Discard()) })

package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// WizardRunner starts the interactive wizard (tui.Run).
type WizardRunner func(ctx context.Context, o tui.Options) error

// Wizard adapts the wizard to the root command's interactive hook. The
// root command owns the flags (rootflags.go) and refuses to start without
// a terminal ("not a terminal: use --batch or a subcommand", exit 2).
type Wizard struct {
	run     WizardRunner
	aborted bool
}

// NewWizard builds the interactive hook; pass its Interactive method to
// Execute.
func NewWizard(run WizardRunner) *Wizard { return &Wizard{run: run} }

// ExitCode turns Execute's code into the process exit code: quitting the
// wizard before the end is an interruption (130).
func (w *Wizard) ExitCode(code int) int {
	if w.aborted && code != ExitOK {
		return ExitInterrupted
	}
	return code
}

// Interactive runs the wizard for the root command without a subcommand.
func (w *Wizard) Interactive(cmd *cobra.Command, o *Options) error {
	sf := o.Session
	role := handshake.Role(sf.Role)
	switch role {
	case handshake.RoleUnknown, handshake.RoleConsumer, handshake.RoleProvider:
	default:
		return usagef("--role %q: use provider or consumer", role)
	}
	clip, err := tui.ParseClipboardPolicy(sf.Clipboard)
	if err != nil {
		return &UsageError{Err: err}
	}
	engine, err := sf.Engine.options()
	if err != nil {
		return err
	}
	proxyURL, err := sf.Proxy.resolve(o.Printer, false)
	if err != nil {
		return err
	}
	logPath, restore, err := quietLogs(o.Verbose)
	if err != nil {
		return err
	}
	defer restore()
	opts := tui.Options{
		// Each step's wait is bounded by --timeout too, so the advice
		// after a wait that ran out ("raise --timeout") holds here.
		Backend: wizardbackend.New(o.Timeout, engine).WithProxy(proxyURL).WithPodReachCheck(!o.Session.SkipPodReachCheck),
		Local:   tui.ClusterRef{Kubeconfig: o.Local.Kubeconfig, Context: o.Local.Context, Namespace: o.Local.LiqoNamespace},
		Remote: tui.ClusterRef{Kubeconfig: sf.Remote.Kubeconfig, Context: sf.Remote.Context, Namespace: sf.Remote.LiqoNamespace,
			ProxyURL: proxyURL},
		Role:            role,
		PeerID:          sf.RemoteClusterID,
		Clipboard:       clip,
		ControllerImage: flows.ControllerImage,
		Timeout:         o.Timeout,
		In:              o.In,
		Out:             o.Printer.Out,
	}
	err = w.run(cmd.Context(), opts)
	if logPath != "" {
		o.Printer.Info(handshake.NoScope, "client-go and controller logs of this run: %s", logPath)
	}
	if errors.Is(err, tui.ErrAborted) {
		w.aborted = true
	}
	return err
}

// quietLogs keeps client-go's warnings and klog off the terminal while the
// wizard owns it: dropped, or with --verbose written to a log file.
func quietLogs(verbose bool) (string, func(), error) {
	flows.SilenceAPIWarnings()
	if !verbose {
		quietKlog()
		return "", func() {}, nil
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("liqo-auth-tui-%d.log", os.Getpid()))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("opening the log file: %w", err)
	}
	klog.ClearLogger()
	klog.LogToStderr(false)
	klog.SetOutput(f)
	return path, func() {
		klog.Flush()
		klog.SetLogger(logr.Discard())
		_ = f.Close()
	}, nil
}

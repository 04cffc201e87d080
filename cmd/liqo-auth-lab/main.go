// Command liqo-auth-lab runs two real local Kubernetes control planes,
// "provider" and "consumer", for the demo and for trying the tool.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "liqo-auth-lab:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	var dir string
	var opts lab.Options
	root := &cobra.Command{Use: "liqo-auth-lab", Short: "Two local Kubernetes control planes: provider and consumer", SilenceUsage: true, SilenceErrors: true}
	root.PersistentFlags().StringVar(&dir, "dir", ".lab", "folder for the kubeconfigs, logs and state of the lab")
	up := &cobra.Command{
		Use:   "up",
		Short: "Start the lab and keep it running until interrupted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			start := time.Now()
			fmt.Fprintln(os.Stderr, "liqo-auth-lab: starting provider and consumer control planes...")
			return lab.Up(ctx, dir, opts, []string{"provider", "consumer"}, func(cs []*lab.Cluster) {
				abs, _ := filepath.Abs(dir)
				fmt.Fprintf(os.Stderr, "liqo-auth-lab: ready in %.1fs\n", time.Since(start).Seconds())
				for _, c := range cs {
					fmt.Fprintf(os.Stderr, "  %-9s %s  (%s)\n", c.Name, c.KubeconfigPath, c.Config.Host)
				}
				fmt.Fprintf(os.Stderr, "stop with Ctrl-C or `liqo-auth-lab down --dir %s`\n", abs)
			})
		},
	}
	up.Flags().IntVar(&opts.ControllerManagerQPS, "controller-manager-qps", 0, "kube-controller-manager client QPS (0 = its default, 20)")
	up.Flags().DurationVar(&opts.SigningDuration, "signing-duration", 0, "validity of issued certificates (0 = 1 year)")
	up.Flags().BoolVar(&opts.Nodes, "nodes", false, "give each cluster a Node on which Pods run, in a network namespace of its own (needs root; `make node-binaries` builds what it runs)")
	up.Flags().StringArrayVar(&opts.Images, "load-image", nil, "docker-archive loaded into every Node once the lab is up, without a registry (repeatable; needs --nodes)")
	down := &cobra.Command{
		Use:   "down",
		Short: "Stop a lab started in another shell",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			return lab.Down(ctx, dir)
		},
	}
	run := &cobra.Command{
		Use:   "run -- COMMAND [ARGS...]",
		Short: "Start the lab, run a command against it, stop the lab when the command ends",
		Long: `Starts the lab, then runs COMMAND with PROVIDER_KUBECONFIG and CONSUMER_KUBECONFIG
set to the clusters' admin kubeconfigs, attached to this terminal. The lab stops when
the command exits, and the command's exit code is returned.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			fmt.Fprintln(os.Stderr, "liqo-auth-lab: starting provider and consumer control planes...")
			code, err := lab.Run(ctx, dir, opts, args)
			if err == nil && code != 0 {
				os.Exit(code)
			}
			return err
		},
	}
	run.Flags().AddFlagSet(up.Flags())
	root.AddCommand(up, down, run)
	return root
}

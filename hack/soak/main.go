// Command soak (`make soak`) leaves a lab provider with many consumers
// renewing their certificates through faults, and checks that nothing
// drifts: every consumer runs its own kube-apiserver (its objects live in
// namespaces named after the provider, which would collide on a shared
// one) on a shared etcd, and its own liqo-auth-controller process; the
// provider runs the controller as two replicas under leader election. The
// provider's kube-apiserver is restarted, the leader replica SIGKILLed and
// a consumer's kube-apiserver paused, on timers, while every kubeconfig
// is probed against the provider. It prints what it measured; the last
// line sums it up for scripts, and it exits 1 when a target was missed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
)

func main() {
	cfg := Config{}
	consumers, why := machineDefaultConsumers()
	flag.IntVar(&cfg.Consumers, "consumers", consumers, "consumers, each with its kube-apiserver and controller process (default: 100, or what this machine's CPUs carry)")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Minute, "how long to soak once all are authenticated")
	flag.DurationVar(&cfg.SigningDuration, "signing-duration", 3*time.Minute, "validity of the certificates the provider issues")
	flag.DurationVar(&cfg.ProbeInterval, "probe-interval", 30*time.Second, "each kubeconfig authenticates against the provider this often")
	flag.DurationVar(&cfg.ProviderRestartEvery, "provider-restart-every", 5*time.Minute, "restart the provider's kube-apiserver this often (0: never)")
	flag.DurationVar(&cfg.LeaderKillEvery, "leader-kill-every", 7*time.Minute, "SIGKILL the provider controller's leader replica this often (0: never)")
	flag.DurationVar(&cfg.ConsumerPauseEvery, "consumer-pause-every", 6*time.Minute, "pause a consumer's kube-apiserver this often (0: never)")
	flag.DurationVar(&cfg.ConsumerPauseFor, "consumer-pause-for", time.Minute, "how long a consumer's kube-apiserver stays paused")
	flag.StringVar(&cfg.ControllerBinary, "controller", "bin/liqo-auth-controller", "the liqo-auth-controller binary (make build)")
	flag.StringVar(&cfg.Dir, "dir", "", "folder for the kubeconfigs and logs (default: a temporary one, removed when the soak passed)")
	flag.Parse()
	if err := check(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	chosen := false
	flag.Visit(func(f *flag.Flag) { chosen = chosen || f.Name == "consumers" })
	if why != "" && !chosen {
		fmt.Fprintln(os.Stderr, "soak:", why)
	}
	os.Exit(run(cfg))
}

func check(cfg Config) error {
	switch {
	case flag.NArg() > 0:
		return fmt.Errorf("unexpected argument %q (it takes flags only)", flag.Arg(0))
	case cfg.Consumers < 1:
		return fmt.Errorf("--consumers %d: want at least 1", cfg.Consumers)
	case cfg.Duration <= 0 || cfg.ProbeInterval <= 0 || cfg.SigningDuration <= 0:
		return fmt.Errorf("--duration, --probe-interval and --signing-duration must be positive")
	}
	if _, err := os.Stat(cfg.ControllerBinary); err != nil {
		return fmt.Errorf("--controller: %w (build it with `make build`)", err)
	}
	return nil
}

func run(cfg Config) int {
	keep := cfg.Dir != ""
	if !keep {
		dir, err := os.MkdirTemp("", "liqo-auth-soak-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			return 1
		}
		cfg.Dir = dir
	} else if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	// client-go's own lines (watches cut by the faults, informers stopped)
	// go to a file beside the processes' logs, not between the soak's lines.
	clientLog, err := os.Create(filepath.Join(cfg.Dir, "soak-client-go.log"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	defer clientLog.Close()
	klog.SetLogger(textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(clientLog))))
	defer klog.Flush()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := Run(ctx, cfg, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v (logs in %s)\n", err, cfg.Dir)
		return 1
	}
	r.Print(os.Stdout)
	if problems := r.Problems(); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "soak: missed:", p)
		}
		fmt.Fprintf(os.Stderr, "soak: logs in %s\n", cfg.Dir)
		return 1
	}
	if !keep {
		_ = os.RemoveAll(cfg.Dir)
	}
	return 0
}

// Command liqo-auth-controller is the in-cluster controller: the provider
// and consumer reconcilers of kube/controller under leader election, with
// health, readiness and Prometheus metrics endpoints.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == kube.ReachCheckMode {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := checkReach(ctx, os.Args[2:], os.Stdout)
		stop()
		os.Exit(code)
	}
	o, done, err := parseFlags(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\nRun '%s --help' for usage.\n", name, err, name)
		os.Exit(2)
	}
	if done {
		return
	}
	capVerbosity(o.logging)
	if err := logsapi.ValidateAndApply(o.logging, nil); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}

	if err := applyMemoryLimit(o.memoryLimit); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		klog.ErrorS(err, name+" stopped")
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
}

// maxVerbosity is the highest -v (and --vmodule level) the controller logs
// at: from 8 up client-go logs HTTP bodies, and with them the cluster's
// private key (authentication-keys) and the consumers' kubeconfig Secrets.
const maxVerbosity = 7

// capVerbosity lowers -v and --vmodule levels above maxVerbosity, saying so.
func capVerbosity(c *logsapi.LoggingConfiguration) {
	capped := c.Verbosity > maxVerbosity
	c.Verbosity = min(c.Verbosity, maxVerbosity)
	for i := range c.VModule {
		capped = capped || c.VModule[i].Verbosity > maxVerbosity
		c.VModule[i].Verbosity = min(c.VModule[i].Verbosity, maxVerbosity)
	}
	if capped {
		fmt.Fprintf(os.Stderr, "%s: logging at -v=%d at most: from 8 up client-go logs HTTP bodies, private keys included\n", name, maxVerbosity)
	}
}

func run(ctx context.Context, o options) error {
	cfg, err := restConfig(o)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	// Next to its API server, gzip only costs CPU on both ends (and the API
	// server compresses a watch stream event by event).
	cfg.DisableCompression = true
	// Every request is counted on /metrics (liqo_auth_api_requests_total).
	cfg = controller.CountAPIRequests(cfg)
	c, err := kube.NewCluster(cfg, o.liqoNamespace)
	if err != nil {
		return err
	}
	copts, err := controllerOptions(o)
	if err != nil {
		return err
	}
	controller.RegisterMetrics()
	m, err := controller.New(c, copts)
	if err != nil {
		return err
	}
	s := &status{}
	servers := []*http.Server{
		{Addr: o.healthAddr, Handler: s.healthMux(m), ReadHeaderTimeout: 5 * time.Second},
		{Addr: o.metricsAddr, Handler: metricsMux(o.profiling), ReadHeaderTimeout: 5 * time.Second},
	}
	for _, srv := range servers {
		go func() {
			if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "HTTP server failed", "address", srv.Addr)
				stopProcess()
			}
		}()
	}
	defer func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, srv := range servers {
			_ = srv.Shutdown(shutdown)
		}
	}()
	klog.InfoS("Starting", "version", version.Info().Version, "apiServer", c.Server, "liqoNamespace", c.Namespace, "provider", o.provider, "consumer", o.consumer, "leaderElect", o.leaderElect)
	if !o.leaderElect {
		s.leading.Store(true)
		return m.Run(ctx)
	}
	identity := o.identity
	if identity == "" {
		identity = os.Getenv("POD_NAME")
	}
	if identity == "" {
		identity, _ = os.Hostname()
	}
	return controller.RunWithLease(ctx, c, o.leaseName, identity, o.leaseTiming, m, func(leading bool) {
		s.leading.Store(leading)
		klog.InfoS("Leadership changed", "identity", identity, "leading", leading)
	})
}

// controllerOptions turns the flags into the reconcilers' Options. In a Pod
// (no --kubeconfig) the advertised address defaults, like Liqo's, to a
// control-plane Node's: the in-cluster server is a Service VIP consumers
// cannot reach.
func controllerOptions(o options) (controller.Options, error) {
	copts := controller.Options{Provider: o.provider, Consumer: o.consumer, Workers: o.workers,
		APIServerOverride: o.apiServerOverride, TrustedCA: o.trustedCA, AdvertiseNodeAddress: o.kubeconfig == "",
		DefaultNodeResources: o.defaultNodeResources.list,
		SliceOffer:           o.sliceOffer, DefaultSliceClassDisabled: !o.defaultSliceClassEnabled,
		// A wizard that served the cluster until these Pods ran hands over
		// first: never two runners at once.
		WaitForInProcess: true}
	var err error
	switch {
	case o.caOverride != "":
		if copts.CAOverride, err = kube.DecodeCAOverride(o.caOverride); err != nil {
			return copts, fmt.Errorf("--ca-override: %w", err)
		}
	case o.caOverrideFile != "":
		if copts.CAOverride, err = os.ReadFile(o.caOverrideFile); err != nil {
			return copts, fmt.Errorf("--ca-override-file: %w", err)
		}
	}
	return copts, nil
}

func restConfig(o options) (*rest.Config, error) {
	if o.kubeconfig == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("not running in a cluster (%w): pass --kubeconfig", err)
		}
		return cfg, nil
	}
	c, err := kube.Connect(kube.KubeconfigOptions{Path: o.kubeconfig, Context: o.context})
	if err != nil {
		return nil, err
	}
	return c.Config, nil
}

func metricsMux(profiling bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(controller.Registry, promhttp.HandlerOpts{}))
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// stopProcess ends the process the way a signal would.
func stopProcess() { _ = syscall.Kill(os.Getpid(), syscall.SIGTERM) }

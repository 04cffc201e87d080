// Command liqo-auth-controller is the in-cluster controller: the provider
// and consumer reconcilers of kube/controller under leader election, with
// health, readiness and Prometheus metrics endpoints.
package main

import (
	"context"
	"errors"
	"flag"
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
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

type options struct {
	kubeconfig, context, liqoNamespace string
	leaderElect                        bool
	leaseName, identity                string
	healthAddr, metricsAddr            string
	provider, consumer                 bool
	apiServerOverride, caOverrideFile  string
	workers                            int
	profiling                          bool
	qps                                float64
	burst                              int
}

func main() {
	o := options{}
	fs := flag.NewFlagSet("liqo-auth-controller", flag.ExitOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for development (default: in-cluster config)")
	fs.StringVar(&o.context, "context", "", "kubeconfig context (with --kubeconfig)")
	fs.StringVar(&o.liqoNamespace, "liqo-namespace", kube.DefaultLiqoNamespace, "namespace of the cluster ID, keys and the leader Lease")
	fs.BoolVar(&o.leaderElect, "leader-elect", true, "run only while holding the leader Lease (needed with more than one replica)")
	fs.StringVar(&o.leaseName, "lease-name", kube.ControllerLeaseName, "name of the leader Lease; the wizard looks for it to know a controller runs")
	fs.StringVar(&o.identity, "identity", "", "leader election identity (default: $POD_NAME or the host name)")
	fs.StringVar(&o.healthAddr, "health-address", ":8081", "address of /healthz and /readyz")
	fs.StringVar(&o.metricsAddr, "metrics-address", ":8080", "address of /metrics")
	fs.BoolVar(&o.provider, "provider", true, "serve the provider side (nonce creator, Tenant reconciler)")
	fs.BoolVar(&o.consumer, "consumer", true, "serve the consumer side (nonce signer, Identity reconciler)")
	fs.StringVar(&o.apiServerOverride, "api-server-address-override", "", "provider API server URL advertised to consumers (default: the in-cluster API server URL)")
	fs.StringVar(&o.caOverrideFile, "ca-override-file", "", "provider CA bundle advertised to consumers (default: the service account's ca.crt)")
	// A Tenant's reconcile mostly waits: on its requests and on the CA
	// signing its CSR. Many of them at once keep the API server, not the
	// queue, the limit when consumers arrive together: in the 1,000-Tenant
	// benchmark, 64 workers took ~10% less time than 32 and 8 took ~25%
	// more (128 gained nothing over 64).
	fs.IntVar(&o.workers, "workers", 64, "workers per reconciler")
	fs.BoolVar(&o.profiling, "profiling", false, "serve Go's pprof profiles on the metrics address, under /debug/pprof/")
	// Like controller-runtime, no client-side limit by default: the API
	// server's priority and fairness protects it, and a 50 QPS bucket
	// would make a burst of Tenants wait for the client, not the server.
	fs.Float64Var(&o.qps, "kube-api-qps", -1, "client-side rate limit of the requests to the API server, per second (negative: none; the API server's priority and fairness applies)")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "burst of the client-side rate limit (with a positive --kube-api-qps)")
	// Structured logs, as text (klog's key=value) or JSON for log
	// pipelines: --logging-format, -v, --vmodule.
	logging := logsapi.NewLoggingConfiguration()
	logsapi.AddGoFlags(logging, fs)
	_ = fs.Parse(os.Args[1:])
	if err := logsapi.ValidateAndApply(logging, nil); err != nil {
		fmt.Fprintln(os.Stderr, "liqo-auth-controller:", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		klog.ErrorS(err, "liqo-auth-controller stopped")
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
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
	copts := controller.Options{Provider: o.provider, Consumer: o.consumer, APIServerOverride: o.apiServerOverride, Workers: o.workers}
	if o.caOverrideFile != "" {
		if copts.CAOverride, err = os.ReadFile(o.caOverrideFile); err != nil {
			return fmt.Errorf("--ca-override-file: %w", err)
		}
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
	klog.InfoS("Starting", "apiServer", c.Server, "liqoNamespace", c.Namespace, "provider", o.provider, "consumer", o.consumer, "leaderElect", o.leaderElect)
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
	return controller.RunWithLease(ctx, c, o.leaseName, identity, m, func(leading bool) {
		s.leading.Store(leading)
		klog.InfoS("Leadership changed", "identity", identity, "leading", leading)
	})
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

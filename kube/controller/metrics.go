package controller

import (
	"regexp"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/client-go/util/workqueue"
)

// Prometheus series of the reconcilers. They register on Registry, which
// the in-cluster controller serves on /metrics.
var (
	Registry = prometheus.NewRegistry()

	reconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "liqo_auth_reconcile_total", Help: "Reconciles by controller and result (success, error).",
	}, []string{"controller", "result"})
	reconcileDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "liqo_auth_reconcile_duration_seconds", Help: "Time of one reconcile, by controller.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
	}, []string{"controller"})
	certificateExpiry = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "liqo_auth_certificate_expiry_timestamp_seconds",
		Help: "NotAfter of the certificate issued to each consumer (Tenant), as a Unix time.",
	}, []string{"consumer"})
	identityCertificateExpiry = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "liqo_auth_identity_certificate_expiry_timestamp_seconds",
		Help: "NotAfter of the certificate in each Identity (consumer side), as a Unix time.",
	}, []string{"provider", "identity"})
	renewalsApplied = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "liqo_auth_identity_renewals_total",
		Help: "Certificates renewed by a provider and applied to an Identity (consumer side), by provider.",
	}, []string{"provider"})
)

// runtimeMetrics are the Go runtime's usual series (go_goroutines,
// go_memstats_*) and go_gc_heap_live_bytes, the heap the last collection
// found live: what tells a leak from garbage not yet collected.
var runtimeMetrics = collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(
	collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)}))

var registerOnce sync.Once

// RegisterMetrics registers the reconcile, certificate and workqueue series
// (depth, adds, latency, work duration, retries), the Go runtime's and the
// process's on Registry. Call it once
// before starting a Manager whose metrics are served.
func RegisterMetrics() {
	registerOnce.Do(func() {
		Registry.MustRegister(reconciles, reconcileDuration, certificateExpiry, identityCertificateExpiry, renewalsApplied, apiRequests,
			runtimeMetrics, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		workqueue.SetProvider(queueMetrics{})
	})
}

// observeSync records one reconcile.
func observeSync(controller string, took time.Duration, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	reconciles.WithLabelValues(controller, result).Inc()
	reconcileDuration.WithLabelValues(controller).Observe(took.Seconds())
}

// observeCertificate records the expiry of a consumer's certificate; a zero
// time forgets it (Tenant deleted).
func observeCertificate(consumerID string, notAfter time.Time) {
	if notAfter.IsZero() {
		certificateExpiry.DeleteLabelValues(consumerID)
		return
	}
	certificateExpiry.WithLabelValues(consumerID).Set(float64(notAfter.Unix()))
}

// observeIdentityCertificate records the expiry of the certificate of an
// Identity (key namespace/name); a zero time forgets it (Identity deleted).
func observeIdentityCertificate(providerID, identity string, notAfter time.Time) {
	if notAfter.IsZero() {
		identityCertificateExpiry.DeletePartialMatch(prometheus.Labels{"identity": identity})
		return
	}
	identityCertificateExpiry.WithLabelValues(providerID, identity).Set(float64(notAfter.Unix()))
}

// observeRenewal counts a renewed certificate applied to an Identity.
func observeRenewal(providerID string) {
	renewalsApplied.WithLabelValues(providerID).Inc()
}

// queueMetrics adapts client-go's workqueue metrics to Prometheus.
type queueMetrics struct{}

func (queueMetrics) vec(name, help string) *prometheus.GaugeVec {
	return registerOrGet(prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "liqo_auth_workqueue_" + name, Help: help}, []string{"name"})).(*prometheus.GaugeVec)
}

func (queueMetrics) counter(name, help string) *prometheus.CounterVec {
	return registerOrGet(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "liqo_auth_workqueue_" + name, Help: help}, []string{"name"})).(*prometheus.CounterVec)
}

func (queueMetrics) histogram(name, help string) *prometheus.HistogramVec {
	return registerOrGet(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "liqo_auth_workqueue_" + name, Help: help,
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"name"})).(*prometheus.HistogramVec)
}

// registerOrGet registers c, or returns the collector already registered
// under the same name (queues of the same name share series).
func registerOrGet(c prometheus.Collector) prometheus.Collector {
	if err := Registry.Register(c); err != nil {
		if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
			return are.ExistingCollector
		}
		panic(err)
	}
	return c
}

func (q queueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return q.vec("depth", "Current depth of the workqueue.").WithLabelValues(name)
}

func (q queueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return q.counter("adds_total", "Adds handled by the workqueue.").WithLabelValues(name)
}

func (q queueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return q.histogram("queue_duration_seconds", "How long an item waits in the workqueue before being processed.").WithLabelValues(name)
}

func (q queueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return q.histogram("work_duration_seconds", "How long processing an item takes.").WithLabelValues(name)
}

func (q queueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return q.vec("unfinished_work_seconds", "Seconds of work in progress not yet observed by work_duration.").WithLabelValues(name)
}

func (q queueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return q.vec("longest_running_processor_seconds", "Seconds the longest running processor has been running.").WithLabelValues(name)
}

func (q queueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return q.counter("retries_total", "Retries handled by the workqueue.").WithLabelValues(name)
}

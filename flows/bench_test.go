package flows_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// BenchmarkAuthenticate runs the automated flow on the lab pair, each run
// the first on its pair, served by in-process controllers: most runs on a
// fresh consumer/provider ID pair right after init; every fifth on the
// previous pair right after `unauthenticate` (its namespaces, Leases and
// CSRs of the last run still there). It prints p50/p99/max, the time per
// step, and the steps of the slowest run. Run it with -benchtime 50x.
func BenchmarkAuthenticate(b *testing.B) {
	var runs []benchRun
	perStep := map[string][]time.Duration{}
	var order []string
	var last struct {
		provider, consumer *kube.Cluster
		id                 string
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		run := benchRun{kind: "after init"}
		var provider, consumer *kube.Cluster
		id := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano()%1e6, i)
		if i%5 == 4 && last.provider != nil {
			// The previous pair, unauthenticated: its run's leftovers are
			// what a re-run finds.
			provider, consumer, id = last.provider, last.consumer, last.id
			if _, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil); err != nil {
				b.Fatal(err)
			}
			run.kind = "after unauthenticate"
		} else {
			if last.provider != nil {
				// Waited for: another pair's namespaces being deleted by
				// kube-controller-manager would take the CPUs from this run.
				cleanup(b, ctx, last.provider, last.consumer, last.id+"-p", last.id+"-c", true)
			}
			provider = benchCluster(b, ctx, 0, id+"-p")
			consumer = benchCluster(b, ctx, 1, id+"-c")
		}
		last.provider, last.consumer, last.id = provider, consumer, id
		b.StartTimer()
		start := time.Now()
		_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, func(ev handshake.Event) {
			if ev.Kind == handshake.StepDone {
				key := fmt.Sprintf("%02d %-8s %s", ev.Index, "("+string(ev.Scope)+")", ev.Message)
				if _, seen := perStep[key]; !seen {
					order = append(order, key)
				}
				perStep[key] = append(perStep[key], ev.Elapsed)
				run.steps = append(run.steps, benchStep{key, ev.Elapsed})
			}
		})
		run.total = time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, run)
		cancel()
		b.StartTimer()
	}
	b.StopTimer()
	if last.provider != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cleanup(b, ctx, last.provider, last.consumer, last.id+"-p", last.id+"-c", true)
		cancel()
	}
	reportAuthenticateRuns(b, runs, perStep, order)
}

type benchStep struct {
	key     string
	elapsed time.Duration
}

// benchRun is one timed authenticate: what it followed and its steps.
type benchRun struct {
	kind  string
	total time.Duration
	steps []benchStep
}

func reportAuthenticateRuns(b *testing.B, runs []benchRun, perStep map[string][]time.Duration, order []string) {
	totals := make([]time.Duration, len(runs))
	slowest := 0
	byKind := map[string][]time.Duration{}
	for i, r := range runs {
		totals[i] = r.total
		byKind[r.kind] = append(byKind[r.kind], r.total)
		if r.total > runs[slowest].total {
			slowest = i
		}
	}
	p50, p99, worst := percentile(totals, 50), percentile(totals, 99), slices.Max(totals)
	b.ReportMetric(p50.Seconds(), "p50-s")
	b.ReportMetric(p99.Seconds(), "p99-s")
	b.ReportMetric(worst.Seconds(), "max-s")
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\nauthenticate over %d runs, each the first on its pair: p50 %s  p99 %s  max %s  (target p50 <= 300ms, p99 and max <= 1s)\n",
		len(totals), p50.Round(time.Millisecond), p99.Round(time.Millisecond), worst.Round(time.Millisecond))
	for _, kind := range []string{"after init", "after unauthenticate"} {
		if ds := byKind[kind]; len(ds) > 0 {
			fmt.Fprintf(w, "  %d runs %s: p50 %s  max %s\n", len(ds), kind, percentile(ds, 50).Round(time.Millisecond), slices.Max(ds).Round(time.Millisecond))
		}
	}
	// In order: a trend (the lab filling up) shows here, not in percentiles.
	inOrder := make([]string, len(totals))
	for i, d := range totals {
		inOrder[i] = strconv.FormatInt(d.Milliseconds(), 10)
	}
	fmt.Fprintf(w, "  each run in order (ms): %s\n", strings.Join(inOrder, " "))
	fmt.Fprintln(w, "step\tp50\tp95\tmax")
	slices.Sort(order)
	for _, k := range order {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", strings.TrimSpace(k), percentile(perStep[k], 50).Round(100*time.Microsecond),
			percentile(perStep[k], 95).Round(100*time.Microsecond), slices.Max(perStep[k]).Round(100*time.Microsecond))
	}
	if len(runs) > 0 {
		r := runs[slowest]
		fmt.Fprintf(w, "slowest run (#%d, %s): %s\n", slowest+1, r.kind, r.total.Round(time.Millisecond))
		for _, st := range r.steps {
			fmt.Fprintf(w, "  %s\t%s\n", strings.TrimSpace(st.key), st.elapsed.Round(100*time.Microsecond))
		}
	}
	w.Flush()
}

// cleanup removes a run's peering and namespaces, so that the next run's
// controllers do not also reconcile the leftovers of earlier runs (on a
// real cluster, one Liqo namespace means one identity; here logical
// clusters share a control plane).
//
// With wait, it returns once the namespaces are gone (the namespace
// controller takes ~20 s on the lab); without, they go in the background.
func cleanup(b *testing.B, ctx context.Context, provider, consumer *kube.Cluster, providerID, consumerID string, wait bool) {
	if _, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil); err != nil {
		b.Fatal(err)
	}
	type doomed struct {
		c  *kube.Cluster
		ns string
	}
	var all []doomed
	for _, ns := range []string{kube.TenantNamespaceName(consumerID), provider.Namespace} {
		all = append(all, doomed{provider, ns})
	}
	for _, ns := range []string{kube.TenantNamespaceName(providerID), consumer.Namespace} {
		all = append(all, doomed{consumer, ns})
	}
	for _, d := range all {
		if err := d.c.Kube.CoreV1().Namespaces().Delete(ctx, d.ns, metav1.DeleteOptions{}); err != nil && !kube.IsNotFound(err) {
			b.Fatal(err)
		}
	}
	if !wait {
		return
	}
	for _, d := range all {
		nss := d.c.Kube.CoreV1().Namespaces()
		if err := kube.WaitForDeletion(ctx, kube.ListWatch(nss.List, nss.Watch, kube.ByName(d.ns)), &corev1.Namespace{}, "namespace "+d.ns); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCluster(b *testing.B, ctx context.Context, i int, id string) *kube.Cluster {
	c, err := kube.NewCluster(clusters(b)[i].Config, "liqo-"+id)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Init(ctx, kube.InitOptions{ClusterID: id}); err != nil {
		b.Fatal(err)
	}
	return c
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	idx := (len(s)*p + 99) / 100
	return s[max(idx-1, 0)]
}

package flows_test

import (
	"context"
	"fmt"
	"os"
	"slices"
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
// with a fresh consumer/provider ID pair (clusters prepared with init only,
// served by in-process controllers), and prints p50/p95 and time per step.
// Run it with -benchtime 20x or more.
func BenchmarkAuthenticate(b *testing.B) {
	var totals []time.Duration
	perStep := map[string][]time.Duration{}
	var order []string
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		id := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano()%1e6, i)
		provider := benchCluster(b, ctx, 0, id+"-p")
		consumer := benchCluster(b, ctx, 1, id+"-c")
		b.StartTimer()
		start := time.Now()
		_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, func(ev handshake.Event) {
			if ev.Kind == handshake.StepDone {
				key := fmt.Sprintf("%02d %-8s %s", ev.Index, "("+string(ev.Scope)+")", ev.Message)
				if _, seen := perStep[key]; !seen {
					order = append(order, key)
				}
				perStep[key] = append(perStep[key], ev.Elapsed)
			}
		})
		totals = append(totals, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cleanup(b, ctx, provider, consumer, id+"-p", id+"-c")
		cancel()
		b.StartTimer()
	}
	p50, p95 := percentile(totals, 50), percentile(totals, 95)
	b.ReportMetric(p50.Seconds(), "p50-s")
	b.ReportMetric(p95.Seconds(), "p95-s")
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\nauthenticate over %d runs: p50 %s  p95 %s  (target p50 <= 400ms)\n", len(totals), p50.Round(time.Millisecond), p95.Round(time.Millisecond))
	fmt.Fprintln(w, "step\tp50\tp95")
	slices.Sort(order)
	for _, k := range order {
		fmt.Fprintf(w, "%s\t%s\t%s\n", strings.TrimSpace(k), percentile(perStep[k], 50).Round(100*time.Microsecond), percentile(perStep[k], 95).Round(100*time.Microsecond))
	}
	w.Flush()
}

// cleanup removes a run's peering and namespaces, so that the next run's
// controllers do not also reconcile the leftovers of earlier runs (on a
// real cluster, one Liqo namespace means one identity; here logical
// clusters share a control plane).
func cleanup(b *testing.B, ctx context.Context, provider, consumer *kube.Cluster, providerID, consumerID string) {
	if err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider}, nil); err != nil {
		b.Fatal(err)
	}
	for _, x := range []struct {
		c          *kube.Cluster
		namespaces []string
	}{{provider, []string{kube.TenantNamespaceName(consumerID), provider.Namespace}}, {consumer, []string{kube.TenantNamespaceName(providerID), consumer.Namespace}}} {
		for _, ns := range x.namespaces {
			nss := x.c.Kube.CoreV1().Namespaces()
			if err := nss.Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !kube.IsNotFound(err) {
				b.Fatal(err)
			}
			if err := kube.WaitForDeletion(ctx, kube.ListWatch(nss.List, nss.Watch, kube.ByName(ns)), &corev1.Namespace{}, "namespace "+ns); err != nil {
				b.Fatal(err)
			}
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

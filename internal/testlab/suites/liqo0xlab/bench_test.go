//go:build cluster

package liqo0xlab_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// liqoctlPeer is what `liqoctl peer out-of-band` took from start to
// AuthenticationStatus Established on such a pair (§10, 4 fresh runs).
const liqoctlPeer = "1.3–1.7 s"

// BenchmarkLiqo0xAuthenticate times AuthenticateLiqo0x against a provider
// running Liqo v0.10.1, from its start to an authenticated consumer, for
// both consumer paths: a consumer running Liqo 0.x (its own controllers
// authenticate) and a cluster prepared by init (this tool is the 0.x
// consumer). Each run starts clean: the timer is stopped while
// UnauthenticateLiqo0x removes what the previous run left on both sides.
// Run it with -benchtime 5x.
func BenchmarkLiqo0xAuthenticate(b *testing.B) {
	cs := testLab.Clusters(b)
	ctx := b.Context()
	realliqo0x.StartCluster(b, ctx, cs[0], providerID, providerName, false)
	provider := mustCluster(b, cs[0])
	results := map[string][]time.Duration{}

	b.Run("liqo-consumer", func(b *testing.B) {
		realliqo0x.StartCluster(b, ctx, cs[1], consumerID, consumerName, true)
		results["liqo-consumer"] = benchAuthenticate(b, mustCluster(b, cs[1]), provider)
	})
	b.Run("tool-consumer", func(b *testing.B) {
		plain := mustCluster(b, cs[2])
		if _, err := plain.Init(ctx, kube.InitOptions{}); err != nil {
			b.Fatal(err)
		}
		results["tool-consumer"] = benchAuthenticate(b, plain, provider)
	})

	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\nLiqo %s authentication, start of AuthenticateLiqo0x → authenticated consumer\n", realliqo0x.LiqoVersion)
	fmt.Fprintln(w, "consumer\truns\tp50\tmax\tliqoctl peer out-of-band (§10)")
	for _, path := range []string{"liqo-consumer", "tool-consumer"} {
		if ds := results[path]; len(ds) > 0 {
			fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\n", path, len(ds), median(ds).Round(time.Millisecond), slices.Max(ds).Round(time.Millisecond), liqoctlPeer)
		}
	}
	w.Flush()
}

// benchAuthenticate runs AuthenticateLiqo0x once per iteration and removes
// its leftovers, timer stopped, before the next; it reports p50 and max.
func benchAuthenticate(b *testing.B, consumer, provider *kube.Cluster) []time.Duration {
	unauth := func(ctx context.Context) {
		_, err := liqo0x.Unauthenticate(ctx, liqo0x.UnauthOptions{Consumer: consumer, Provider: provider, Yes: true}, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	// Registered after the processes: runs while Liqo still runs, even
	// when an iteration fails (the provider issues one identity per ID).
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		unauth(ctx)
	})
	var runs []time.Duration
	for b.Loop() {
		ctx, cancel := context.WithTimeout(b.Context(), 2*time.Minute)
		start := time.Now()
		res, err := liqo0x.Authenticate(ctx, consumer, provider, "", liqo0x.Options{InsecureSkipTLSVerify: true}, nil)
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if res.AlreadyAuthenticated || res.User == "" {
			b.Fatalf("run %d did not authenticate anew: %+v", len(runs)+1, res)
		}
		runs = append(runs, elapsed)
		unauth(ctx)
		cancel()
		b.StartTimer()
	}
	b.ReportMetric(float64(median(runs).Milliseconds()), "p50-ms")
	b.ReportMetric(float64(slices.Max(runs).Milliseconds()), "max-ms")
	return runs
}

// median is the middle run (the lower one of an even count).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Sorted(slices.Values(ds))[(len(ds)-1)/2]
}

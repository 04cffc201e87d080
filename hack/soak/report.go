package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// perRenewal is the API requests per renewal done during the soak,
// without the Lease renewals (they come with time); without lists and
// watches too in excluding (they come with the faults: an informer relists
// after its API server restarts).
func (r *Result) perRenewal(requests map[string]float64) (all, excluding float64) {
	var total, lw float64
	for k, v := range requests {
		verb, resource, _ := strings.Cut(k, " ")
		if resource == "leases" {
			continue
		}
		total += v
		if verb == "list" || verb == "watch" {
			lw += v
		}
	}
	n := float64(max(r.Renewals.doneSince, 1))
	return total / n, (total - lw) / n
}

// Print writes the report; its last line sums it up for scripts.
func (r *Result) Print(w io.Writer) {
	c := r.Config
	fmt.Fprintf(w, "\n== soak: %d consumers (control-plane and slice kubeconfigs each), %s, certificates of %s ==\n",
		c.Consumers, shortDuration(c.Duration), shortDuration(c.SigningDuration))
	fmt.Fprintf(w, "set up in %s; faults: provider kube-apiserver restarted every %s, leader replica SIGKILLed every %s, a consumer's kube-apiserver paused for %s every %s\n",
		r.Setup.Round(time.Second), or(c.ProviderRestartEvery), or(c.LeaderKillEvery), shortDuration(c.ConsumerPauseFor), or(c.ConsumerPauseEvery))
	for _, win := range r.Windows {
		fmt.Fprintf(w, "  %s %-34s %-18s %s\n", win.start.UTC().Format(time.TimeOnly), win.kind, win.what, win.end.Sub(win.start).Round(10*time.Millisecond))
	}

	p := r.Probes
	fmt.Fprintf(w, "probes: %d (every kubeconfig every %s), failed %d (not authenticated, or the provider unavailable outside its restarts and the %s after each), %d excused (the provider restarting, or the certificate not valid)\n",
		p.total, shortDuration(c.ProbeInterval), len(p.counted), shortDuration(recoveryMargin), len(p.excused))
	for i, f := range p.excused {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more\n", len(p.excused)-i)
			break
		}
		fmt.Fprintf(w, "  excused %s %s: %s\n", f.start.UTC().Format(time.TimeOnly), f.key, f.err)
	}
	for i, f := range p.counted {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more\n", len(p.counted)-i)
			break
		}
		fmt.Fprintf(w, "  FAILED %s %s: %s\n", f.start.UTC().Format(time.TimeOnly), f.key, f.err)
	}
	rn := r.Renewals
	fmt.Fprintf(w, "renewals: %d done of %d due (2/3 point before the end), %d expired; latest after its 2/3 point %s\n",
		rn.done, rn.due, rn.expired, rn.latest.Round(100*time.Millisecond))
	fmt.Fprintf(w, "longest a kubeconfig was invalid: %s (probe failures that count), %s (held an expired certificate)\n",
		p.longestInvalid.Round(100*time.Millisecond), rn.longestExpired.Round(100*time.Millisecond))
	fmt.Fprintf(w, "leader changes: %d\n", len(r.LeaderChanges))
	for _, lc := range r.LeaderChanges {
		how := "unprovoked, since the old holder's last renewal seen"
		if lc.killed {
			how = "since its SIGKILL"
		}
		fmt.Fprintf(w, "  %s %s -> %s in %s (%s)\n", lc.at.UTC().Format(time.TimeOnly), lc.from, lc.to, lc.took.Round(100*time.Millisecond), how)
	}
	fmt.Fprintf(w, "%-44s %14s %14s %14s\n", "controllers", "soak's start", "warmed up", "end")
	fmt.Fprintf(w, "%-44s %14s %14s\n", "", "", "+"+r.Warmup.String())
	row := func(label string, a, b, c any) { fmt.Fprintf(w, "%-44s %14v %14v %14v\n", label, a, b, c) }
	mib := func(bytes float64) string { return fmt.Sprintf("%.1fMiB", bytes/(1<<20)) }
	rss := func(u usage) string { return mib(float64(u.rssKiB) * 1024) }
	row("provider leader: live heap", mib(r.LeaderSetup.heapBytes), mib(r.LeaderStart.heapBytes), mib(r.LeaderEnd.heapBytes))
	row("provider leader: goroutines", r.LeaderSetup.goroutines, r.LeaderStart.goroutines, r.LeaderEnd.goroutines)
	row("provider leader: open sockets", r.LeaderSetup.sockets, r.LeaderStart.sockets, r.LeaderEnd.sockets)
	row("provider leader: RSS", rss(r.LeaderSetup), rss(r.LeaderStart), rss(r.LeaderEnd))
	row("consumers' controllers: live heap (sum)", mib(r.ConsumersSetup.heapBytes), mib(r.ConsumersStart.heapBytes), mib(r.ConsumersEnd.heapBytes))
	row("consumers' controllers: goroutines (sum)", r.ConsumersSetup.goroutines, r.ConsumersStart.goroutines, r.ConsumersEnd.goroutines)
	row("consumers' controllers: open sockets (sum)", r.ConsumersSetup.sockets, r.ConsumersStart.sockets, r.ConsumersEnd.sockets)
	row("consumers' controllers: RSS (sum)", rss(r.ConsumersSetup), rss(r.ConsumersStart), rss(r.ConsumersEnd))
	fmt.Fprintf(w, "largest consumer controller's peak RSS: %s\n", mib(float64(r.ConsumerPeakRSSKiB)*1024))
	if len(r.HeapTrend) > 0 {
		fmt.Fprintf(w, "live heap during the soak (provider leader, consumers' controllers): start %s, %s", mib(r.LeaderSetup.heapBytes), mib(r.ConsumersSetup.heapBytes))
		for _, pt := range r.HeapTrend {
			fmt.Fprintf(w, "; %s %s, %s", pt.since.Round(time.Minute), mib(pt.leader), mib(pt.consumers))
		}
		fmt.Fprintf(w, "; end %s, %s\n", mib(r.LeaderEnd.heapBytes), mib(r.ConsumersEnd.heapBytes))
	}

	for _, side := range []struct {
		name     string
		requests map[string]float64
	}{{"provider's replicas", r.ProviderRequests}, {"consumers' controllers", r.ConsumerRequests}} {
		all, excluding := r.perRenewal(side.requests)
		fmt.Fprintf(w, "API requests per renewal, %s (%d renewals during the soak, Lease renewals left out): %.2f, %.2f without lists and watches\n",
			side.name, rn.doneSince, all, excluding)
		keys := make([]string, 0, len(side.requests))
		for k, v := range side.requests {
			if v > 0 {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return side.requests[keys[i]] > side.requests[keys[j]] })
		for _, k := range keys {
			fmt.Fprintf(w, "  %-48s %8.0f\n", k, side.requests[k])
		}
	}
	fmt.Fprintf(w, "CSRs left on the provider: %d\n", r.CSRsLeft)
	for _, what := range r.CSRsLeftWhat {
		fmt.Fprintf(w, "  %s\n", what)
	}
	var reasons []string
	total := 0
	for reason, n := range r.Warnings {
		reasons = append(reasons, fmt.Sprintf("%s %d", reason, n))
		total += n
	}
	sort.Strings(reasons)
	fmt.Fprintf(w, "Warning events: %d (%d last seen during a fault or within %s after it): %s\n",
		total, r.WarningsNearFaults, shortDuration(warningMargin), strings.Join(reasons, ", "))

	co := r.Costs
	secs := co.over.Seconds()
	fmt.Fprintf(w, "CPU over the soak (share of one CPU): provider kube-apiserver %.0f%%, consumers' kube-apiservers %.0f%% (%.1f%% each), shared etcd %.0f%%, controllers %.0f%%\n",
		100*co.providerAPIServerCPU.Seconds()/secs, 100*co.consumerAPIServersCPU.Seconds()/secs,
		100*co.consumerAPIServersCPU.Seconds()/secs/float64(c.Consumers), 100*co.etcdCPU.Seconds()/secs, 100*co.controllersCPU.Seconds()/secs)
	fmt.Fprintf(w, "Memory at the end (proportional set size): provider kube-apiserver %s, consumers' kube-apiservers %s (%s each), shared etcd %s\n",
		mib(float64(co.providerAPIServerPSSKiB)*1024), mib(float64(co.consumerAPIServersPSSKiB)*1024),
		mib(float64(co.consumerAPIServersPSSKiB)*1024/float64(c.Consumers)), mib(float64(co.etcdPSSKiB)*1024))
	fmt.Fprintln(w, r.SummaryLine())
}

// SummaryLine is the report's last line.
func (r *Result) SummaryLine() string {
	return fmt.Sprintf("soak: %d consumers, %s, probes failed %d, renewals %d/%d, expired %d, heap growth %.0f%%, goroutine growth %d",
		r.Config.Consumers, shortDuration(r.Config.Duration), r.ProbesFailed(), r.Renewals.done, r.Renewals.due, r.Renewals.expired,
		r.HeapGrowth(), r.GoroutineGrowth())
}

// Beyond these, the controllers grow: noise measured here is a few
// percent of heap and 2–3 goroutines per controller (idle connections of
// replaced clients, closed after 90 s).
const (
	maxHeapGrowth      = 20 // percent
	maxGoroutineGrowth = 10 // per controller process
)

// Problems lists the targets the soak missed.
func (r *Result) Problems() []string {
	var out []string
	if n := r.ProbesFailed(); n > 0 {
		out = append(out, fmt.Sprintf("%d probes failed (not authenticated, or the provider unavailable outside its restarts)", n))
	}
	if r.Renewals.expired > 0 {
		out = append(out, fmt.Sprintf("%d certificates expired", r.Renewals.expired))
	}
	if r.Renewals.done != r.Renewals.due {
		out = append(out, fmt.Sprintf("renewals done %d of %d due", r.Renewals.done, r.Renewals.due))
	}
	if r.CSRsLeft > 0 {
		out = append(out, fmt.Sprintf("%d CSRs left on the provider", r.CSRsLeft))
	}
	if g := r.HeapGrowth(); g > maxHeapGrowth {
		out = append(out, fmt.Sprintf("the controllers' live heap grew %.0f%% after the warm-up (more than %d%%): see the trend above and the heap profiles (go tool pprof -diff_base)", g, maxHeapGrowth))
	}
	if g, most := r.GoroutineGrowth(), maxGoroutineGrowth*(r.Config.Consumers+1); g > most {
		out = append(out, fmt.Sprintf("the controllers' goroutines grew by %d after the warm-up (more than %d, %d per controller)", g, most, maxGoroutineGrowth))
	}
	return out
}

func or(d time.Duration) string {
	if d <= 0 {
		return "never"
	}
	return shortDuration(d)
}

// shortDuration prints 30m for 30m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

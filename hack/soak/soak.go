package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Config is what one soak runs.
type Config struct {
	Consumers       int
	Duration        time.Duration
	SigningDuration time.Duration // the provider's certificates' validity
	ProbeInterval   time.Duration // each kubeconfig is probed this often
	// The faults' periods (0: never) and how long a consumer stays paused.
	ProviderRestartEvery, LeaderKillEvery, ConsumerPauseEvery, ConsumerPauseFor time.Duration

	ControllerBinary string
	Dir              string // logs and kubeconfigs
}

// Result is what a soak measured.
type Result struct {
	Config        Config
	Setup         time.Duration
	Probes        probeAccount
	Renewals      renewals
	LeaderChanges []leaderChange
	Windows       []window
	// Usage of the controllers (the provider's leader, every consumer's
	// controller summed) when the soak starts, once warmed up (Warmup
	// into it: every kubeconfig renewed at least once; growth counts from
	// there) and at the end.
	LeaderSetup, LeaderStart, LeaderEnd          usage
	ConsumersSetup, ConsumersStart, ConsumersEnd usage
	Warmup                                       time.Duration
	ConsumerPeakRSSKiB                           int64 // the largest consumer controller's
	// HeapTrend samples the live heaps during the soak, to tell a warm-up
	// that levels off from a steady growth.
	HeapTrend []heapPoint
	// Requests of the provider's replicas and of the consumers'
	// controllers during the soak, by "verb resource".
	ProviderRequests, ConsumerRequests map[string]float64
	CSRsLeft                           int
	CSRsLeftWhat                       []string       // each left CSR: name, age, state, requestor
	Warnings                           map[string]int // by reason
	// WarningsNearFaults counts those last seen during a fault or within
	// warningMargin after it.
	WarningsNearFaults int
	Costs              costs
}

// HeapGrowth is the growth of the controllers' live heap from the warm-up
// to the end, in percent.
func (r *Result) HeapGrowth() float64 {
	start := r.LeaderStart.heapBytes + r.ConsumersStart.heapBytes
	end := r.LeaderEnd.heapBytes + r.ConsumersEnd.heapBytes
	return 100 * (end - start) / start
}

// GoroutineGrowth is the growth of the controllers' goroutines from the
// warm-up to the end.
func (r *Result) GoroutineGrowth() int {
	return r.LeaderEnd.goroutines + r.ConsumersEnd.goroutines - r.LeaderStart.goroutines - r.ConsumersStart.goroutines
}

// ProbesFailed counts the failures outside the windows by design.
func (r *Result) ProbesFailed() int { return len(r.Probes.counted) }

// Run starts the lab, soaks for cfg.Duration, and measures.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Result, error) {
	began := time.Now()
	progress := func(format string, args ...any) {
		fmt.Fprintf(log, "%s soak: %s\n", time.Now().UTC().Format(time.TimeOnly), fmt.Sprintf(format, args...))
	}
	s, err := start(ctx, cfg, progress)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	r := &Result{Config: cfg}

	k := newKubeconfigs()
	watchCtx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	for _, c := range s.consumers {
		if err := k.follow(watchCtx, c); err != nil {
			return nil, fmt.Errorf("consumer %s: %w", c.id, err)
		}
	}
	if got, want := len(k.keys()), 2*cfg.Consumers; got != want {
		return nil, fmt.Errorf("%d kubeconfig Secrets on the consumers, want %d (control plane and slice each)", got, want)
	}
	f := newFaults(s)
	if err := f.followLease(watchCtx); err != nil {
		return nil, err
	}
	r.Setup = time.Since(began)
	progress("set up in %s: soaking for %s", r.Setup.Round(time.Second), cfg.Duration)

	if r.LeaderSetup, r.ConsumersSetup, _, err = s.usage(ctx, f, "setup"); err != nil {
		return nil, err
	}
	providerBefore, consumerBefore := requests(ctx, s.replicas), requests(ctx, s.consumerControllers())
	costs0 := s.costs()
	soakStart := time.Now()

	soakCtx, endSoak := context.WithTimeout(ctx, cfg.Duration)
	defer endSoak()
	p := newProber(k, cfg.ProbeInterval)
	var wg sync.WaitGroup
	var faultErr error
	wg.Go(func() { p.run(soakCtx) })
	wg.Go(func() {
		if faultErr = f.run(ctx, soakCtx, cfg, progress); faultErr != nil {
			endSoak()
		}
	})
	wg.Go(func() { s.scrapeEvery(soakCtx, time.Minute) })
	var warmErr error
	r.Warmup = warmup(cfg)
	wg.Go(func() {
		if r.LeaderStart, r.ConsumersStart, warmErr = s.warmedUp(soakCtx, f, r.Warmup); warmErr != nil {
			endSoak()
		}
	})
	wg.Go(func() { r.HeapTrend = s.heapTrend(soakCtx, f, soakStart, heapTrendEvery(cfg.Duration), progress) })
	wg.Wait()
	if faultErr != nil {
		return nil, fmt.Errorf("injecting a fault: %w", faultErr)
	}
	if warmErr != nil {
		return nil, fmt.Errorf("sampling the controllers once warmed up: %w", warmErr)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	soakEnd := time.Now()
	r.Costs = s.costs().since(costs0, soakEnd.Sub(soakStart))
	progress("soaked; waiting for the renewals due before the end")

	k.settle(ctx, soakEnd)
	r.Renewals = k.account(soakStart, soakEnd, time.Now())
	r.Windows = f.windowsOf(providerDown)
	r.Windows = append(r.Windows, f.windowsOf(leaderKilled)...)
	r.Windows = append(r.Windows, f.windowsOf(consumerPaused)...)
	r.Probes = p.account(withMargin(f.windowsOf(providerDown), recoveryMargin), soakEnd)
	f.mu.Lock()
	r.LeaderChanges = append([]leaderChange(nil), f.changes...)
	f.mu.Unlock()
	if r.LeaderEnd, r.ConsumersEnd, r.ConsumerPeakRSSKiB, err = s.usage(ctx, f, "end"); err != nil {
		return nil, err
	}
	r.ProviderRequests = diff(requests(ctx, s.replicas), providerBefore)
	r.ConsumerRequests = diff(requests(ctx, s.consumerControllers()), consumerBefore)
	if r.CSRsLeftWhat, err = s.csrsLeft(ctx); err != nil {
		return nil, err
	}
	r.CSRsLeft = len(r.CSRsLeftWhat)
	r.Warnings, r.WarningsNearFaults = s.warnings(ctx, r.Windows)
	return r, nil
}

// usage samples the provider's leader and sums the consumers' controllers;
// the heap profiles of the leader and of the first consumer's controller
// are kept as <dir>/heap-<stage>-<identity>.pprof (stage "": not kept).
func (s *soakLab) usage(ctx context.Context, f *faults, stage string) (leader, consumers usage, peakRSSKiB int64, err error) {
	holder, _ := f.leader()
	for _, p := range s.replicas {
		if p.identity == holder {
			if leader, err = p.sample(ctx); err != nil {
				return leader, consumers, 0, err
			}
			if stage == "" {
				continue
			}
			if err = os.WriteFile(s.heapProfilePath(stage, p), leader.heapProfile, 0o600); err != nil {
				return leader, consumers, 0, err
			}
		}
	}
	for i, c := range s.consumers {
		u, err := c.ctl.sample(ctx)
		if err != nil {
			return leader, consumers, 0, err
		}
		if i == 0 && stage != "" {
			if err = os.WriteFile(s.heapProfilePath(stage, c.ctl), u.heapProfile, 0o600); err != nil {
				return leader, consumers, 0, err
			}
		}
		consumers.heapBytes += u.heapBytes
		consumers.goroutines += u.goroutines
		consumers.sockets += u.sockets
		consumers.rssKiB += u.rssKiB
		peakRSSKiB = max(peakRSSKiB, statusKiB(c.ctl.pid(), "VmHWM:"))
	}
	return leader, consumers, peakRSSKiB, nil
}

// warmup is how long into the soak the controllers' usage is sampled as
// its start: a tenth of it, from 30 s to 3 minutes. By then every
// kubeconfig renewed (20 s after its issuance, see Config.SigningDuration),
// so what a first renewal keeps (clients rebuilt, transports, Event
// caches) is not counted as growth.
func warmup(cfg Config) time.Duration {
	return min(max(cfg.Duration/10, 30*time.Second), 3*time.Minute)
}

// warmedUp samples the usage after d; when the leader cannot be sampled
// (the Lease still names the replica just SIGKILLed), again once the Lease
// changes hands.
func (s *soakLab) warmedUp(ctx context.Context, f *faults, d time.Duration) (leader, consumers usage, err error) {
	select {
	case <-ctx.Done():
		return leader, consumers, fmt.Errorf("the soak ended before its warm-up (%s)", d)
	case <-time.After(d):
	}
	for {
		_, changed := f.leader()
		leader, consumers, _, err = s.usage(ctx, f, "start")
		if err == nil && leader.heapBytes > 0 {
			return leader, consumers, nil
		}
		if err == nil {
			err = errors.New("no leader to sample")
		}
		select {
		case <-ctx.Done():
			return leader, consumers, fmt.Errorf("the soak ended before the controllers could be sampled once warmed up: %w", err)
		case <-changed:
		}
	}
}

// heapPoint is the controllers' live heap at one time of the soak.
type heapPoint struct {
	since             time.Duration // since the soak's start
	leader, consumers float64       // bytes; the consumers' summed
}

// heapTrendEvery samples six times in a soak, at most every 5 minutes.
func heapTrendEvery(d time.Duration) time.Duration {
	return min(max(d/6, time.Minute), 5*time.Minute)
}

// heapTrend samples the live heaps every period until ctx ends; a sample
// that fails (the leader just killed) is skipped.
func (s *soakLab) heapTrend(ctx context.Context, f *faults, start time.Time, every time.Duration, progress func(string, ...any)) []heapPoint {
	var points []heapPoint
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return points
		case <-tick.C:
		}
		leader, consumers, _, err := s.usage(ctx, f, "")
		if err != nil || leader.heapBytes == 0 {
			continue
		}
		pt := heapPoint{since: time.Since(start), leader: leader.heapBytes, consumers: consumers.heapBytes}
		points = append(points, pt)
		progress("live heap: provider leader %.1fMiB, consumers' controllers %.1fMiB", pt.leader/(1<<20), pt.consumers/(1<<20))
	}
}

func (s *soakLab) heapProfilePath(stage string, p *controllerProcess) string {
	return filepath.Join(s.cfg.Dir, "heap-"+stage+"-"+p.identity+".pprof")
}

// requests scrapes the controllers ps and sums their API requests.
func requests(ctx context.Context, ps []*controllerProcess) map[string]float64 {
	out := map[string]float64{}
	for _, p := range ps {
		p.scrapeRequests(ctx)
		for k, v := range p.totalRequests() {
			out[k] += v
		}
	}
	return out
}

func diff(after, before map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		out[k] = v - before[k]
	}
	return out
}

// scrapeEvery keeps the controllers' request counters fresh (a killed
// replica loses what came after its last scrape).
func (s *soakLab) scrapeEvery(ctx context.Context, every time.Duration) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
		for _, p := range s.replicas {
			p.scrapeRequests(ctx)
		}
	}
}

// csrsLeft counts the CSRs the controllers left behind on the provider:
// those there when it is called (renewals go on; the newer ones are in
// flight) that are not deleted within three minutes (the controller
// deletes a finished CSR once its certificate is stored, and its cleaner
// the abandoned ones after the certificate timeout). Waits on a watch.
func (s *soakLab) csrsLeft(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cutoff := time.Now()
	csrs := s.providerC.Kube.CertificatesV1().CertificateSigningRequests()
	var mu sync.Mutex
	live := map[string]*certv1.CertificateSigningRequest{}
	changed := make(chan struct{}, 1)
	lw := kube.ListWatch(csrs.List, csrs.Watch, func(*metav1.ListOptions) {})
	err := runInformerWithDeletes(ctx, lw, &certv1.CertificateSigningRequest{}, func(key string, obj any, deleted bool) {
		mu.Lock()
		if deleted {
			delete(live, key)
		} else if csr, ok := obj.(*certv1.CertificateSigningRequest); ok && csr.CreationTimestamp.Time.Before(cutoff) {
			live[key] = csr
		}
		mu.Unlock()
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, err
	}
	for {
		mu.Lock()
		n := len(live)
		mu.Unlock()
		if n == 0 {
			return nil, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			return describeCSRs(live, time.Now()), nil
		}
	}
}

// describeCSRs says what each CSR left is, sorted by name: what a fix
// starts from.
func describeCSRs(csrs map[string]*certv1.CertificateSigningRequest, now time.Time) []string {
	out := make([]string, 0, len(csrs))
	for _, csr := range csrs {
		state := "pending"
		for _, c := range csr.Status.Conditions {
			state = string(c.Type)
		}
		if len(csr.Status.Certificate) > 0 {
			state = "issued"
		}
		out = append(out, fmt.Sprintf("%s (%s, %s old, by %s, labels %v)", csr.Name, state,
			now.Sub(csr.CreationTimestamp.Time).Round(time.Second), csr.Spec.Username, csr.Labels))
	}
	sort.Strings(out)
	return out
}

// warningMargin is how long after a fault its Warnings still count as
// its own: informers back off up to 30 s after their API server came back.
const warningMargin = 30 * time.Second

// recoveryMargin is how long after its restart the provider's API server
// may still be unavailable to a probe (429 while every informer relists
// at once, timeouts on a loaded machine) without the failure counting; a
// kubeconfig refused (401, TLS) counts whenever its certificate is valid.
const recoveryMargin = 30 * time.Second

// withMargin is ws, each window longer by margin.
func withMargin(ws []window, margin time.Duration) []window {
	out := make([]window, len(ws))
	for i, w := range ws {
		w.end = w.end.Add(margin)
		out[i] = w
	}
	return out
}

// warnings counts the Warning Events on the provider and the consumers,
// by reason, and those last seen during a fault or right after it.
func (s *soakLab) warnings(ctx context.Context, faults []window) (map[string]int, int) {
	out, near := map[string]int{}, 0
	faults = withMargin(faults, warningMargin)
	clusters := []*kube.Cluster{s.providerC}
	for _, c := range s.consumers {
		clusters = append(clusters, c.admin)
	}
	for _, c := range clusters {
		list, err := c.Kube.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "type=" + corev1.EventTypeWarning})
		if err != nil {
			out["(listing failed: "+err.Error()+")"]++
			continue
		}
		for _, e := range list.Items {
			n := int(max(e.Count, 1))
			out[e.Reason] += n
			last := e.LastTimestamp.Time
			if last.IsZero() {
				last = e.EventTime.Time
			}
			if last.IsZero() {
				last = e.CreationTimestamp.Time
			}
			if overlaps(faults, last, last) {
				near += n
			}
		}
	}
	return out, near
}

// costs is what the control planes took over the soak.
type costs struct {
	providerAPIServerCPU, consumerAPIServersCPU, etcdCPU, controllersCPU time.Duration
	providerAPIServerPSSKiB, consumerAPIServersPSSKiB, etcdPSSKiB        int64
	over                                                                 time.Duration
}

func (s *soakLab) costs() costs {
	var c costs
	if pid, err := s.provider.APIServerPID(); err == nil {
		c.providerAPIServerCPU, c.providerAPIServerPSSKiB = processCPU(pid), pssKiB(pid)
	}
	for _, cons := range s.consumers {
		if pid, err := cons.cluster.APIServerPID(); err == nil {
			c.consumerAPIServersCPU += processCPU(pid)
			c.consumerAPIServersPSSKiB += pssKiB(pid)
		}
		c.controllersCPU += processCPU(cons.ctl.pid())
	}
	for _, p := range s.replicas {
		c.controllersCPU += processCPU(p.pid())
	}
	if pid, err := s.etcd.PID(); err == nil {
		c.etcdCPU, c.etcdPSSKiB = processCPU(pid), pssKiB(pid)
	}
	return c
}

// since is the CPU spent since before over d; the memory as now.
func (c costs) since(before costs, d time.Duration) costs {
	// A process restarted meanwhile counts from its start: a lower bound.
	minus := func(now, then time.Duration) time.Duration {
		if now < then {
			return now
		}
		return now - then
	}
	c.providerAPIServerCPU = minus(c.providerAPIServerCPU, before.providerAPIServerCPU)
	c.consumerAPIServersCPU = minus(c.consumerAPIServersCPU, before.consumerAPIServersCPU)
	c.etcdCPU = minus(c.etcdCPU, before.etcdCPU)
	c.controllersCPU = minus(c.controllersCPU, before.controllersCPU)
	c.over = d
	return c
}

// processCPU is a process's user+system CPU so far (/proc/<pid>/stat).
func processCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(fields[14-3], 10, 64)
	stime, _ := strconv.ParseInt(fields[15-3], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ = 100
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// controllerProcess is one liqo-auth-controller process (a provider
// replica or a consumer's controller); a killed replica is started again
// in place, with the same identity and addresses.
type controllerProcess struct {
	identity              string
	argv                  []string
	healthURL, metricsURL string
	logPath               string
	env                   []string // added to the soak's environment

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	// requests is the sum of liqo_auth_api_requests_total by "verb
	// resource" over the lives of this identity: each life's last scrape.
	requests, lifeRequests map[string]float64
}

// fineHeapProfile has the runtime record an allocation every 4 KiB instead
// of every 512 KiB, so that the heap profiles the soak keeps show where a
// few MiB go (only in the processes whose profiles are kept).
const fineHeapProfile = "GODEBUG=memprofilerate=4096"

func startController(cfg Config, identity, kubeconfig string, env []string, extra ...string) (*controllerProcess, error) {
	health, metrics := freeAddr(), freeAddr()
	p := &controllerProcess{identity: identity, healthURL: "http://" + health, metricsURL: "http://" + metrics,
		logPath: filepath.Join(cfg.Dir, identity+"-controller.log"), env: env, requests: map[string]float64{}}
	p.argv = append([]string{cfg.ControllerBinary, "--kubeconfig", kubeconfig, "--identity", identity,
		"--health-address", health, "--metrics-address", metrics, "--profiling"}, extra...)
	return p, p.start()
}

func (p *controllerProcess) start() error {
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	// Never outlive the soak.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting the controller %s: %w", p.identity, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); log.Close(); close(exited) }()
	p.mu.Lock()
	p.cmd, p.exited, p.lifeRequests = cmd, exited, nil
	p.mu.Unlock()
	return nil
}

func (p *controllerProcess) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// kill SIGKILLs the process and returns once it is gone; what its counters
// held at the last scrape is kept.
func (p *controllerProcess) kill() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	_ = cmd.Process.Kill()
	<-exited
	p.endLife()
}

func (p *controllerProcess) endLife() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, v := range p.lifeRequests {
		p.requests[k] += v
	}
	p.lifeRequests = nil
}

func (p *controllerProcess) stop() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// waitLeading waits until one of ps leads with its caches synced (its
// /readyz says so; a process has no watch to wait on: polled), or one
// exits.
func waitLeading(ctx context.Context, ps ...*controllerProcess) error {
	for {
		for _, p := range ps {
			if code, body := get(ctx, p.healthURL+"/readyz"); code == http.StatusOK && strings.Contains(body, "leading") {
				return nil
			}
			p.mu.Lock()
			exited := p.exited
			p.mu.Unlock()
			select {
			case <-exited:
				return fmt.Errorf("controller %s exited: see %s", p.identity, p.logPath)
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("controller %s not leading: %w", ps[0].identity, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// usage is what a controller process holds at one time.
type usage struct {
	heapBytes  float64 // live heap after a collection (go_gc_heap_live_bytes)
	goroutines int
	sockets    int
	rssKiB     int64
	// heapProfile is the process's heap profile as of that collection,
	// kept for `go tool pprof -diff_base` between two times (not summed).
	heapProfile []byte
}

// sample reads the process's usage: the heap a forced collection found
// live (its /metrics, read after the collection: the heap profile's own
// text, which debug=1 renders before its HeapAlloc line, would count),
// the goroutines from its pprof endpoint, sockets and RSS from /proc.
func (p *controllerProcess) sample(ctx context.Context) (usage, error) {
	var u usage
	code, profile := get(ctx, p.metricsURL+"/debug/pprof/heap?gc=1")
	if code != http.StatusOK {
		return u, fmt.Errorf("controller %s: heap profile: %s", p.identity, profile)
	}
	u.heapProfile = []byte(profile)
	_, metrics := get(ctx, p.metricsURL+"/metrics")
	v, ok := findValue(metrics, "go_gc_heap_live_bytes ")
	if !ok {
		return u, fmt.Errorf("controller %s: no go_gc_heap_live_bytes on /metrics", p.identity)
	}
	u.heapBytes = v
	_, gor := get(ctx, p.metricsURL+"/debug/pprof/goroutine?debug=1")
	g, ok := findValue(gor, "goroutine profile: total ")
	if !ok {
		return u, fmt.Errorf("controller %s: no goroutine profile", p.identity)
	}
	u.goroutines = int(g)
	pid := p.pid()
	u.sockets = countSockets(pid)
	u.rssKiB = statusKiB(pid, "VmRSS:")
	return u, nil
}

// scrapeRequests records the process's API request counters (its /metrics).
func (p *controllerProcess) scrapeRequests(ctx context.Context) {
	code, body := get(ctx, p.metricsURL+"/metrics")
	if code != http.StatusOK {
		return
	}
	counts := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		series, value, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(series, "liqo_auth_api_requests_total{") {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		labels := parseLabels(series)
		key := labels["verb"] + " " + labels["resource"]
		if code := labels["code"]; code != "" && code[0] != '2' {
			key += " [" + code + "]" // refused or failed: apart
		}
		counts[key] += v
	}
	p.mu.Lock()
	p.lifeRequests = counts
	p.mu.Unlock()
}

// totalRequests is this identity's requests over all its lives so far.
func (p *controllerProcess) totalRequests() map[string]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]float64{}
	for k, v := range p.requests {
		out[k] += v
	}
	for k, v := range p.lifeRequests {
		out[k] += v
	}
	return out
}

func parseLabels(series string) map[string]string {
	out := map[string]string{}
	_, inner, _ := strings.Cut(strings.TrimSuffix(series, "}"), "{")
	for _, kv := range strings.Split(inner, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
}

func findValue(text, prefix string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			return v, err == nil
		}
	}
	return 0, false
}

func get(ctx context.Context, url string) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// countSockets counts the process's open sockets (listeners included).
func countSockets(pid int) int {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}

// statusKiB reads a kB field of /proc/<pid>/status (0 if unreadable).
func statusKiB(pid int, field string) int64 { return procKiB(pid, "status", field) }

// pssKiB is a process's proportional set size: its pages, those it shares
// (as the many kube-apiservers share their binary's) split between the
// sharers, so that a sum over processes is what they take together.
func pssKiB(pid int) int64 { return procKiB(pid, "smaps_rollup", "Pss:") }

// procKiB reads a "<field> <n> kB" line of /proc/<pid>/<file>.
func procKiB(pid int, file, field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}

// handedOut keeps two processes from getting the same free port.
var handedOut sync.Map

func freeAddr() string {
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		addr := l.Addr().String()
		l.Close()
		if _, taken := handedOut.LoadOrStore(addr, true); !taken {
			return addr
		}
	}
}

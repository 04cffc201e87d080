//go:build cluster

package faults_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

const (
	// pauseFor is how long a paused API server stays stopped: longer than
	// faultStepTimeout, so that a wait under a pause runs into its timeout.
	pauseFor = 1500 * time.Millisecond
	// faultStepTimeout bounds each wait of a faulted run, so that it fails
	// fast; the re-run has the default of the commands.
	faultStepTimeout = time.Second
	rerunStepTimeout = 20 * time.Second
	maxFaultAttempts = 3
)

type faultKind string

const (
	pause   faultKind = "pause"
	restart faultKind = "kill+restart"
)

// fault is one case of the matrix: at the start of step, kind hits the
// API server of side.
type fault struct {
	step string
	side handshake.Role
	kind faultKind
}

// matrix: every step gets a fault on the provider and then one on the
// consumer, of the two kinds alternately, so that each step sees both
// kinds, one on each side, and each side sees both kinds at every other
// step:
//
//	step #0, 2, 4, ...: provider paused,          consumer killed+restarted
//	step #1, 3, 5, ...: provider killed+restarted, consumer paused
func matrix(steps []string) []fault {
	var out []fault
	for i, s := range steps {
		kinds := [2]faultKind{pause, restart}
		if i%2 == 1 {
			kinds = [2]faultKind{restart, pause}
		}
		out = append(out, fault{s, handshake.RoleProvider, kinds[0]}, fault{s, handshake.RoleConsumer, kinds[1]})
	}
	return out
}

// stepRecorder collects the IDs of the steps a run starts.
type stepRecorder struct {
	mu    sync.Mutex
	steps []string
}

func (r *stepRecorder) sink(ev handshake.Event) {
	if ev.Kind != handshake.StepStarted {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, ev.Step)
}

// injector is a sink that hits an API server the moment a step starts:
// paused at once and resumed pauseFor later, or killed at once with its
// controller manager (the CSR signer) and both started again in the
// background. done is closed once the server answers again.
type injector struct {
	f    fault
	lc   *lab.Cluster
	once sync.Once
	done chan struct{}
	hit  bool
	// failedAt is when a step failed: the run returns after stopping its
	// in-process controllers, which a dead server must not hold up long.
	failedAt atomic.Pointer[time.Time]
	err      error
	ctx      context.Context
}

func newInjector(ctx context.Context, f fault, lc *lab.Cluster) *injector {
	return &injector{f: f, lc: lc, done: make(chan struct{}), ctx: ctx}
}

func (in *injector) sink(ev handshake.Event) {
	if ev.Kind == handshake.StepFailed {
		now := time.Now()
		in.failedAt.Store(&now)
	}
	if ev.Kind != handshake.StepStarted || ev.Step != in.f.step {
		return
	}
	// The sink runs before the step: the step starts against a stopped or
	// dead server.
	in.once.Do(func() {
		in.hit = true
		switch in.f.kind {
		case pause:
			if in.err = in.lc.PauseAPIServer(); in.err != nil {
				close(in.done)
				return
			}
			go func() {
				defer close(in.done)
				time.Sleep(pauseFor) // the fault's length, not a wait for something
				in.err = in.lc.ResumeAPIServer()
			}()
		case restart:
			if in.err = in.lc.KillControlPlane(); in.err != nil {
				close(in.done)
				return
			}
			go func() {
				defer close(in.done)
				in.err = in.lc.StartControlPlane(in.ctx)
			}()
		}
	})
}

// fired tells whether the fault hit, waiting for the server to be back.
func (in *injector) fired(t *testing.T) bool {
	t.Helper()
	in.once.Do(func() { close(in.done) }) // never fired: nothing to wait for
	select {
	case <-in.done:
	case <-in.ctx.Done():
		t.Fatalf("the %s API server is not back: %v", in.f.side, in.ctx.Err())
	}
	require.NoError(t, in.err, "the fault itself")
	return in.hit
}

func TestAuthenticateUnderFaults(t *testing.T) {
	started := time.Now()
	cs := testLab.Clusters(t)
	t.Logf("lab ready in %s", time.Since(started).Round(time.Millisecond))

	steps, want := healthyRun(t)

	// The provider's faults on the lab's first pair of clusters, the
	// consumer's on the second, both streams at once: a fault hits only the
	// cases of its own stream, whose cases run one after the other.
	t.Run("matrix", func(t *testing.T) {
		for _, stream := range []struct {
			side       handshake.Role
			clustersAt int
		}{{handshake.RoleProvider, 0}, {handshake.RoleConsumer, 2}} {
			t.Run(string(stream.side)+"-faults", func(t *testing.T) {
				t.Parallel()
				lcs := cs[stream.clustersAt : stream.clustersAt+2]
				for i, f := range matrix(steps) {
					if f.side != stream.side {
						continue
					}
					name := fmt.Sprintf("%02d-%s/%s", i/2+1, f.step, strings.ReplaceAll(string(f.kind), "+", "-"))
					t.Run(name, func(t *testing.T) { runFaultCase(t, lcs, f, fmt.Sprintf("f%02d%c", i/2+1, f.side[0]), want) })
				}
			})
		}
	})
	t.Logf("all faults in %s", time.Since(started).Round(time.Millisecond))
}

// runFaultCase runs authenticate on a fresh pair of lcs with fault f, then
// again without: the first completes or fails with one clear line, the
// second converges to what a healthy run makes (want).
func runFaultCase(t *testing.T, lcs []*lab.Cluster, f fault, tag string, want map[string]int) {
	caseStart := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	x := idsFor(tag)
	provider, consumer := pairOn(t, ctx, lcs[0], lcs[1], x)
	target, scope, server := lcs[0], handshake.Remote, provider.Server
	if f.side == handshake.RoleConsumer {
		target, scope, server = lcs[1], handshake.Local, consumer.Server
	}
	var err error
	var faulted time.Duration
	// On a loaded machine an earlier step may miss its short timeout before
	// the faulted step starts: that run is done again (it resumes), up to
	// maxFaultAttempts times, until the fault hits.
	for attempt := 1; ; attempt++ {
		in := newInjector(ctx, f, target)
		runCtx, cancelRun := context.WithTimeout(ctx, 30*time.Second)
		runStart := time.Now()
		_, err = flows.Authenticate(runCtx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: faultStepTimeout}, in.sink)
		cancelRun()
		faulted = time.Since(runStart)
		if at := in.failedAt.Load(); at != nil {
			t.Logf("step failed after %s, run returned %s later", at.Sub(runStart).Round(time.Millisecond), time.Since(*at).Round(time.Millisecond))
		}
		if in.fired(t) {
			break
		}
		require.Error(t, err, "the run completed without reaching step %s", f.step)
		require.Less(t, attempt, maxFaultAttempts, "the fault never hit: every run failed before step %s (last: %v)", f.step, err)
		t.Logf("attempt %d failed before step %s was reached (%v): again", attempt, f.step, err)
	}
	if err != nil {
		checkFailureLine(t, err, f, scope, server)
	} else {
		t.Logf("completed despite the fault")
	}

	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: rerunStepTimeout}, nil)
	require.NoError(t, err, "the re-run must complete")
	assert.Equal(t, want, inventory(t, ctx, provider, consumer, x), "the re-run converges to what a healthy run makes")
	t.Logf("faulted run %s, case %s", faulted.Round(time.Millisecond), time.Since(caseStart).Round(time.Millisecond))
}

// checkFailureLine: a faulted run fails with one line, as the commands
// print it ("(scope) <failure>: <cause>"), naming the faulted side and the
// cause, and no stack or dump.
func checkFailureLine(t *testing.T, err error, f fault, scope handshake.Scope, server string) {
	t.Helper()
	var se *flows.StepError
	require.True(t, errors.As(err, &se), "a failed run fails a step: %v", err)
	printed := fmt.Sprintf("(%s) %s", se.Scope, se.Line)
	assert.NotContains(t, printed, "\n", "one line")
	assert.NotContains(t, printed, "goroutine ", "no stack")
	assert.NotContains(t, printed, `Get "http`, "a request that got no answer names its server, not client-go's URL chain")
	assert.LessOrEqual(t, len(printed), 400, "one readable line, not a dump")
	// The steps on both sides at once (cluster-ids, engines) name the side
	// in the line.
	namesScope := se.Scope != handshake.NoScope || strings.Contains(se.Line, "(local)") || strings.Contains(se.Line, "(remote)")
	assert.True(t, namesScope, "the line names the side that failed: %s", printed)
	if se.Scope == handshake.NoScope {
		printed = se.Line
	}
	t.Logf("failed: %s", printed)
	// The faulted side fails, or a later step of the other side ran out of
	// its (short) time while the faulted one held the run up.
	namesSide := se.Scope == scope || strings.Contains(printed, "("+string(scope)+")") || strings.Contains(printed, server) || strings.Contains(printed, string(f.side))
	assert.True(t, namesSide || strings.Contains(printed, "step timeout"), "the line names the %s (%s, %s): %s", f.side, scope, server, printed)
	assert.True(t, namesCause(printed), "the line names the cause: %s", printed)
	assert.NotContains(t, printed, "PRIVATE KEY", "no key material")
}

// namesCause: the failure says what went wrong with the server.
func namesCause(line string) bool {
	for _, cause := range []string{"connection refused", "connection lost", "step timeout", "Lease", "EOF", "connection reset", "unavailable", "not ready", "timed out", "deadline"} {
		if strings.Contains(line, cause) {
			return true
		}
	}
	return false
}

var healthy struct {
	once  sync.Once
	steps []string
	inv   map[string]int
	err   error
}

// healthyRun authenticates a pair of its own once for the package: the
// steps of the flow, and what a converged pair holds.
func healthyRun(t *testing.T) (steps []string, inv map[string]int) {
	t.Helper()
	healthy.once.Do(func() {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		base := idsFor("fbase")
		provider, consumer := pair(t, ctx, base)
		var rec stepRecorder
		_, healthy.err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: rerunStepTimeout}, rec.sink)
		if healthy.err == nil {
			healthy.steps, healthy.inv = rec.steps, inventory(t, ctx, provider, consumer, base)
		}
	})
	require.NoError(t, healthy.err, "the healthy run")
	require.Len(t, healthy.steps, 16, "authenticate has 16 steps: %v", healthy.steps)
	inv = healthy.inv
	t.Logf("a healthy pair holds:\n%s", describeInventory(inv))
	for _, c := range []struct {
		prefix string
		n      int
	}{{"provider Tenant ", 1}, {"consumer Identity ", 1}, {"consumer Secret liqo-tenant-<P>/kubeconfig-", 1}, {"provider CertificateSigningRequest", 0}} {
		assert.Equal(t, c.n, countPrefix(inv, c.prefix), c.prefix)
	}
	return healthy.steps, inv
}

// countPrefix counts the objects of an inventory whose key starts with prefix.
func countPrefix(inv map[string]int, prefix string) (n int) {
	for k, c := range inv {
		if strings.HasPrefix(k, prefix) {
			n += c
		}
	}
	return n
}

package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Benchmarks of what the admin feels: how long the wizard takes to show
// its first screen, and to show the effect of a key. Both at 120×40 with
// the fake backend (no cluster), reported in µs.

const benchW, benchH = 120, 40

// benchSink keeps the compiler from dropping rendered frames.
var benchSink string

func benchOptions() Options {
	o := both()
	o.Backend = newFake()
	o.Environ = []string{"TERM=xterm-256color", "DISPLAY=:0"}
	o.now = func() time.Time { return fixedNow }
	return o
}

func reportMicros(b *testing.B, per time.Duration, unit, what string) {
	b.Helper()
	us := float64(per.Nanoseconds()) / 1e3
	b.ReportMetric(us, unit)
	b.Logf("%s: %.1f µs", what, us)
}

// BenchmarkTimeToFirstFrame measures from the wizard's start to its first
// rendered frame at 120×40.
//
//   - model: New, the window size, Init, then View (the start screen).
//   - detected: New and Init, running the commands (the fake backend's
//     contexts and probes) until the detect screen has decided, then View.
//   - program: a real tea.Program from Run until the renderer wrote the
//     first frame to its output (includes the renderer's frame tick).
func BenchmarkTimeToFirstFrame(b *testing.B) {
	b.Run("model", func(b *testing.B) {
		o := benchOptions()
		for b.Loop() {
			m := New(context.Background(), o)
			m.Update(tea.WindowSizeMsg{Width: benchW, Height: benchH})
			_ = m.Init()
			benchSink = m.View().Content
		}
		if !strings.Contains(benchSink, "Liqo authentication") {
			b.Fatalf("first frame:\n%s", benchSink)
		}
		reportMicros(b, b.Elapsed()/time.Duration(b.N), "µs/frame", "time to first frame (New+Init+View, 120x40)")
	})
	b.Run("detected", func(b *testing.B) {
		o := benchOptions()
		for b.Loop() {
			h := newHarness(b, newFake(), o)
			h.send(tea.WindowSizeMsg{Width: benchW, Height: benchH})
			benchSink = h.m.View().Content
		}
		if !strings.Contains(benchSink, "Automated mode") {
			b.Fatalf("detect screen:\n%s", benchSink)
		}
		reportMicros(b, b.Elapsed()/time.Duration(b.N), "µs/frame", "time to the detect screen with both clusters probed (fake backend, 120x40)")
	})
	b.Run("program", func(b *testing.B) {
		o := benchOptions()
		var total time.Duration
		for b.Loop() {
			out := newFrameWriter("Liqo authentication")
			m := New(context.Background(), o)
			p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(out), tea.WithWindowSize(benchW, benchH),
				tea.WithEnvironment(o.Environ), tea.WithoutSignalHandler())
			start := time.Now()
			done := make(chan error, 1)
			go func() { _, err := p.Run(); done <- err }()
			select {
			case <-out.seen:
				total += time.Since(start)
			case err := <-done:
				b.Fatalf("the program ended before its first frame: %v", err)
			case <-time.After(10 * time.Second):
				b.Fatal("no first frame in 10s")
			}
			p.Kill()
			if err := <-done; err != nil && !errors.Is(err, tea.ErrProgramKilled) {
				b.Fatal(err)
			}
		}
		reportMicros(b, total/time.Duration(b.N), "µs/first-frame", "time to first frame (tea.Program Run → first frame written, 120x40)")
	})
}

// frameWriter closes seen once the output holds want.
type frameWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want []byte
	seen chan struct{}
	once sync.Once
}

func newFrameWriter(want string) *frameWriter {
	return &frameWriter{want: []byte(want), seen: make(chan struct{})}
}

func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// runScreenWith16Steps is the run screen of the automated handshake with
// 15 steps done (some with notes and Events) and the 16th running.
func runScreenWith16Steps(b *testing.B) *harness {
	h := newHarness(b, newFake(), benchOptions())
	s := h.m.s
	r := newRunScreen(s, opAuthenticate(s))
	r.phases[0].state = stateRunning
	t0 := fixedNow.Add(-5 * time.Second)
	for i := 1; i <= 16; i++ {
		scope := handshake.Local
		if i%2 == 0 {
			scope = handshake.Remote
		}
		id := fmt.Sprintf("step-%d", i)
		r.record(handshake.Event{Kind: handshake.StepStarted, Step: id, Index: i, Total: 16, Scope: scope, Time: t0,
			Message: fmt.Sprintf("Step %d of the handshake", i), Command: fmt.Sprintf("kubectl get tenant consumer-1 -n liqo-tenant-consumer-1 # %d", i)})
		if i%4 == 0 {
			r.record(handshake.Event{Kind: handshake.ClusterEvent, Scope: scope, Reason: "CSRIssued", Message: "Tenant consumer-1: certificate issued"})
		}
		if i < 16 {
			r.record(handshake.Event{Kind: handshake.StepDone, Step: id, Index: i, Total: 16, Scope: scope, Message: fmt.Sprintf("Step %d done", i), Elapsed: 120 * time.Millisecond})
		}
	}
	h.m.cur = r
	h.send(tea.WindowSizeMsg{Width: benchW, Height: benchH})
	return h
}

// BenchmarkKeypressToFrame measures one key: Update with the key message,
// then View, on typical screens at 120×40 (what the program does between
// reading a key and handing the frame to the renderer).
func BenchmarkKeypressToFrame(b *testing.B) {
	cases := []struct {
		name, what string
		key        string
		setup      func(b *testing.B) *harness
		want       string
	}{
		{"run-16-steps", "run screen, 16 steps, tab toggles the command panel", "tab", runScreenWith16Steps, "Step 16 of the handshake"},
		{"detect", "detect screen, s swaps the roles", "s", func(b *testing.B) *harness {
			h := newHarness(b, newFake(), benchOptions())
			h.send(tea.WindowSizeMsg{Width: benchW, Height: benchH})
			return h
		}, "Automated mode"},
		{"summary", "summary screen, d toggles the allowed/denied list", "d", func(b *testing.B) *harness {
			h := newHarness(b, newFake(), benchOptions())
			h.send(tea.WindowSizeMsg{Width: benchW, Height: benchH})
			h.key("enter")
			return h
		}, "Authenticated as:"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			h := c.setup(b)
			m, k := h.m, keyPress(c.key)
			for b.Loop() {
				m.Update(k)
				benchSink = m.View().Content
			}
			if !strings.Contains(benchSink, c.want) {
				b.Fatalf("frame lacks %q:\n%s", c.want, benchSink)
			}
			reportMicros(b, b.Elapsed()/time.Duration(b.N), "µs/frame", "keypress to frame ("+c.what+", 120x40)")
		})
	}
}

// frameBudget is one frame at 60 Hz: the overview's first frame and each
// scroll step must render within it.
const frameBudget = 16 * time.Millisecond

// thousandConsumers is a provider's overview with 1,000 consumers.
func thousandConsumers() []OverviewRow {
	rows := make([]OverviewRow, 1000)
	for i := range rows {
		rows[i] = OverviewRow{RemoteID: fmt.Sprintf("consumer-%04d", i), Role: handshake.RoleProvider, Generation: "v1", MadeBy: "liqo",
			Stage: handshake.StageGenerateIdentity, TenantCondition: "Active", CertificateNotAfter: fakeExpiry, Health: handshake.Health{Verdict: handshake.VerdictOK}}
		if i%10 == 0 {
			rows[i].TenantCondition, rows[i].Health = "Cordoned", handshake.Health{Verdict: handshake.VerdictCordoned, Reason: "the provider cordoned the Tenant: no new resources"}
		}
	}
	return rows
}

// reportFrame reports a per-frame time against the frame budget.
func reportFrame(b *testing.B, what string) {
	b.Helper()
	per := b.Elapsed() / time.Duration(b.N)
	verdict := "within"
	if per > frameBudget {
		verdict = "OVER"
	}
	reportMicros(b, per, "µs/frame", fmt.Sprintf("%s (%s the %v frame budget)", what, verdict, frameBudget))
}

// BenchmarkOverview1000 measures the overview of a provider with 1,000
// consumers at 120×40 (the fake backend, no cluster):
//
//   - first-frame: the screen built from the 1,000 rows detection read,
//     sized and rendered (what the admin waits for after enter);
//   - scroll-step: one ↓ or ↑ and the frame after it, up and down the
//     whole list;
//   - refresh: a new overview from the watch (1,000 rows) and its frame.
//
// Each must stay within one frame (16 ms): only the window's rows are
// rendered.
func BenchmarkOverview1000(b *testing.B) {
	rows := thousandConsumers()
	setup := func(b *testing.B) *harness {
		f := newFake()
		f.overview.lists = [][]OverviewRow{rows}
		o := providerOnly()
		o.Environ = benchOptions().Environ
		h := newHarness(b, f, o)
		h.send(tea.WindowSizeMsg{Width: benchW, Height: benchH})
		h.key("enter")
		if _, ok := h.m.cur.(*overviewScreen); !ok {
			b.Fatalf("not the overview:\n%s", h.view())
		}
		return h
	}
	b.Run("first-frame", func(b *testing.B) {
		h := setup(b)
		m := h.m
		for b.Loop() {
			m.cur = newOverviewScreen(m.s)
			m.cur.Update(tea.WindowSizeMsg{Width: benchW, Height: benchH})
			benchSink = m.View().Content
		}
		if !strings.Contains(benchSink, "1000 peering(s)") {
			b.Fatalf("first frame:\n%s", benchSink)
		}
		reportFrame(b, "overview first frame, 1,000 peerings (120x40)")
	})
	b.Run("scroll-step", func(b *testing.B) {
		m := setup(b).m
		down, up := keyPress("down"), keyPress("up")
		i := 0
		for b.Loop() {
			k := down
			if (i/(len(rows)-1))%2 == 1 {
				k = up
			}
			i++
			m.Update(k)
			benchSink = m.View().Content
		}
		if !strings.Contains(benchSink, "consumer-") {
			b.Fatalf("frame:\n%s", benchSink)
		}
		reportFrame(b, "overview scroll step, 1,000 peerings (120x40)")
	})
	b.Run("refresh", func(b *testing.B) {
		m := setup(b).m
		o := m.cur.(*overviewScreen)
		closed := make(chan []OverviewRow)
		close(closed)
		for b.Loop() {
			m.Update(overviewMsg{gen: o.gen, rows: rows, ch: closed})
			benchSink = m.View().Content
		}
		reportFrame(b, "overview refreshed from the watch, 1,000 peerings (120x40)")
	})
}

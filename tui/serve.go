package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// In manual mode nothing else may serve the provider once its admin is
// done: its wizard ran the controllers in-process for each step only. The
// consumer's request for resources (§10.1) comes later, by replication,
// and waits for the provider's controller. So the provider's summary
// serves the provider (Backend.ServeSlices) for as long as the wizard
// stays open, and shows the consumer's requests and their answers.

type (
	// servedMsg is what serves the provider and the consumer's slices
	// there, as they change.
	servedMsg struct{ ps ProviderSlices }
	// serveEndedMsg: serving stopped (err nil: the wizard ends).
	serveEndedMsg struct{ err error }
)

// SliceLister is what the summary reads of the consumer's resources.
type SliceLister interface {
	// ResourceSlices lists the consumer's ResourceSlices with providerID.
	ResourceSlices(ctx context.Context, consumer ClusterRef, providerID string) ([]SliceInfo, error)
}

// SliceServer serves a manual provider from its summary.
type SliceServer interface {
	// ServeSlices serves provider while ctx lives when nothing else does
	// (in-process, with every reconciler: the consumer's requests for
	// resources are answered meanwhile), and reports what serves it, then
	// the copies of consumerID's ResourceSlices whenever they change. It
	// returns nil once ctx ends, or why serving stopped.
	ServeSlices(ctx context.Context, provider ClusterRef, consumerID string, report func(ProviderSlices)) error
}

// serving is the provider served while the wizard runs: one per session.
type serving struct {
	cancel context.CancelFunc
	done   chan struct{}
	// updates carries servedMsg and serveEndedMsg to the summary.
	updates chan tea.Msg
	// latest is the last state reported and err why serving ended; read
	// on the UI goroutine (the summary keeps its own copy), written by the
	// serving goroutine under mu.
	mu     sync.Mutex
	latest *ProviderSlices
	err    error
}

// servesSlices tells whether this session's summary serves the provider:
// a manual provider of a v1 handshake with a known consumer.
func (s *session) servesSlices() bool {
	return s.mode == ModeManual && s.selfRole() == handshake.RoleProvider && s.peerID != "" &&
		s.peeringUser == nil && s.peerInfo == nil && s.liqo0xResult == nil
}

// serveSlices starts serving the provider for the rest of the wizard (once:
// later calls return the same serving). Its servedMsg and serveEndedMsg go
// to notify, on the serving goroutine (the line mode prints them), or, nil,
// to the summary through updates.
func (s *session) serveSlices(notify func(tea.Msg)) *serving {
	if s.served != nil {
		return s.served
	}
	ctx, cancel := context.WithCancel(s.ctx)
	sv := &serving{cancel: cancel, done: make(chan struct{}), updates: make(chan tea.Msg, 16)}
	s.served = sv
	var server SliceServer = s.backend
	provider, consumerID := s.self(), s.peerID
	if notify == nil {
		notify = func(msg tea.Msg) {
			select {
			case sv.updates <- msg:
			case <-ctx.Done():
			}
		}
	}
	go func() {
		defer close(sv.done)
		err := func() (err error) {
			defer func() {
				if v := recover(); v != nil {
					err = recovered("serving the provider", v)
				}
			}()
			return server.ServeSlices(ctx, provider, consumerID, func(ps ProviderSlices) {
				sv.mu.Lock()
				sv.latest = &ps
				sv.mu.Unlock()
				notify(servedMsg{ps: ps})
			})
		}()
		if ctx.Err() != nil {
			return // the wizard ends: nobody listens
		}
		sv.mu.Lock()
		sv.err = err
		sv.mu.Unlock()
		notify(serveEndedMsg{err: err})
	}()
	return sv
}

// stopServing ends the serving, if any, and waits a while for it to hand
// back its Lease (the next run on this cluster then takes over at once).
func (s *session) stopServing() {
	sv := s.served
	if sv == nil {
		return
	}
	sv.cancel()
	select {
	case <-sv.done:
	case <-time.After(15 * time.Second):
	}
}

// listen delivers the next update of the serving; nothing once it ended
// with nothing left to deliver.
func (sv *serving) listen() tea.Cmd {
	return func() tea.Msg {
		select {
		case msg := <-sv.updates:
			return msg
		case <-sv.done:
			select {
			case msg := <-sv.updates:
				return msg
			default:
				return nil
			}
		}
	}
}

// ended tells whether serving stopped with nothing left to deliver.
func (sv *serving) ended() bool {
	select {
	case <-sv.done:
		return len(sv.updates) == 0
	default:
		return false
	}
}

// state is the last reported state and why serving ended.
func (sv *serving) state() (*ProviderSlices, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.latest, sv.err
}

// servedSection is the provider summary's part on the consumer's requests
// for resources: who answers them, and their answers.
func (m *summaryScreen) servedSection(b *strings.Builder, width int) {
	s := m.s
	w := max(width-2, 20)
	b.WriteString("\n" + styleBold.Render("resources") + styleSubtle.Render(" (consumer "+s.peerID+"'s ResourceSlices on this provider)") + "\n")
	switch ps := m.served; {
	case m.serveErr != nil:
		reason, _ := explain(m.serveErr)
		b.WriteString(styleWarn.Render(wrap(iconWarn+" not served from here: "+oneLine(reason), w)) + "\n")
		b.WriteString(wrap(styleSubtle.Render("If nothing else serves this provider, its requests wait unanswered: `liqo-auth-tui install controller` serves them for good."), w) + "\n")
		return
	case ps == nil:
		b.WriteString("  " + styleSubtle.Render("starting to serve them…") + "\n")
		return
	case ps.InProcess():
		b.WriteString(wrap("This wizard answers them in-process while this summary is open: enter ends it. "+
			styleSubtle.Render("`liqo-auth-tui install controller` answers them for good."), w) + "\n")
	default:
		b.WriteString(wrap(string(ps.Engine)+" answers them.", w) + "\n")
	}
	if len(m.served.Slices) == 0 {
		b.WriteString("  none yet" + styleSubtle.Render(": they appear here when the consumer requests resources") + "\n")
		return
	}
	for _, sl := range m.served.Slices {
		line := fmt.Sprintf("  %s  authentication %s · resources %s", sl.Name, sliceState(sl.Authentication), sliceState(sl.Resources))
		if len(sl.Granted) > 0 {
			line += " · granted " + formatResources(sl.Granted, "-")
		}
		b.WriteString(wrap(line, w) + "\n")
	}
}

// serveLines starts serving in line mode: what serves the provider, each
// new answer and a failure are printed as progress lines as they come; the
// first state (or the failure) is awaited so that the summary shows it.
func (m *summaryScreen) serveLines(u *lineUI) {
	consumerID := m.s.peerID
	var last *ProviderSlices
	first := make(chan struct{})
	var once sync.Once
	m.sv = m.s.serveSlices(func(msg tea.Msg) {
		switch msg := msg.(type) {
		case servedMsg:
			for _, l := range servedLines(last, msg.ps, consumerID) {
				u.logLine("INFO", handshake.Local, l)
			}
			last = &msg.ps
		case serveEndedMsg:
			if msg.err != nil {
				reason, _ := explain(msg.err)
				u.logLine("WARN", handshake.Local, "not serving the provider any more: "+reason)
			}
		}
		once.Do(func() { close(first) })
	})
	select {
	case <-first:
	case <-u.ctx.Done():
	}
	m.served, m.serveErr = m.sv.state()
}

// servedLines says in line mode what changed since before: who serves, and
// each slice whose answer is new.
func servedLines(before *ProviderSlices, now ProviderSlices, consumerID string) []string {
	var out []string
	if before == nil {
		who := string(now.Engine) + " answers consumer " + consumerID + "'s ResourceSlices"
		if now.InProcess() {
			who = "This wizard answers consumer " + consumerID + "'s ResourceSlices in-process until it ends"
		}
		out = append(out, who)
	}
	old := map[string]SliceInfo{}
	if before != nil {
		for _, sl := range before.Slices {
			old[sl.Name] = sl
		}
	}
	for _, sl := range now.Slices {
		if o, ok := old[sl.Name]; ok && o.Authentication == sl.Authentication && o.Resources == sl.Resources {
			continue
		}
		out = append(out, fmt.Sprintf("ResourceSlice %s of consumer %s: authentication %s, resources %s",
			sl.Name, consumerID, orDefault(sl.Authentication, "pending"), orDefault(sl.Resources, "pending")))
	}
	return out
}

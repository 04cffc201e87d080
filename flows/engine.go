package flows

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// Engine names what serves a side of the handshake.
type Engine = handshake.Engine

const (
	EngineLiqo              = handshake.EngineLiqo
	EngineController        = handshake.EngineController
	EngineInProcess         = handshake.EngineInProcess
	EngineControllerAssumed = handshake.EngineControllerAssumed
)

// EngineOptions tune the in-process controllers.
type EngineOptions struct {
	// NoInProcess refuses to run controllers in-process: a side without a
	// controller then fails instead.
	NoInProcess bool
	// APIServerOverride / CAOverride / TrustedCA: what the provider
	// advertises (§6.4) instead of its default; "", nil, false = the
	// default. Besides configuring in-process controllers, the flows put
	// them on the Tenant as advertise annotations (kube.AdvertiseAnnotations),
	// which the in-cluster controller honours too and renewals keep.
	APIServerOverride string
	CAOverride        []byte
	TrustedCA         bool
}

// InProcessLeaseName is the Lease in-process runners of a role hold, so two
// wizards on one cluster never reconcile at once.
func InProcessLeaseName(r handshake.Role) string { return kube.InProcessLeasePrefix + string(r) }

// engines starts in-process controllers where a side needs them and stops
// them when the flow ends.
type engines struct {
	// handshakeOnly: the in-process controllers serve one authenticate
	// (controller.Options.HandshakeOnly).
	handshakeOnly bool
	// handedOver, if set, is told when a role's in-process controllers
	// handed over to the in-cluster controller (its Pods run).
	handedOver func(handshake.Role)
	mu         sync.Mutex
	runs       []*controller.Started
	slots      []leaseSlot // of runs, freed once they stopped
}

type leaseSlot struct {
	lease string
	n     int
}

// leaseSlots numbers, per Lease, the in-process runs of this process that
// are under way, for their identity (host-pid-slot). Two flows at once in one
// process (tests, a wizard and a command) get two identities, so the
// Lease keeps them apart: the second waits for the first. A flow after
// another reuses its slot, hence its identity, so it takes over at once
// the Lease that the first could not release (its API server was down
// when it ended) instead of waiting for it to expire.
var leaseSlots slotSet

type slotSet struct {
	mu   sync.Mutex
	used map[leaseSlot]bool
}

// take returns the lowest free slot of lease.
func (s *slotSet) take(lease string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used == nil {
		s.used = map[leaseSlot]bool{}
	}
	n := 0
	for s.used[leaseSlot{lease, n}] {
		n++
	}
	s.used[leaseSlot{lease, n}] = true
	return n
}

func (s *slotSet) free(lease string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.used, leaseSlot{lease, n})
}

// inProcessStartTimeout bounds the wait for the in-process controllers to
// hold their Lease and sync their caches (or the step's deadline, if
// sooner).
var inProcessStartTimeout = 30 * time.Second

// EngineError is the failure of in-process controllers: they could not
// start, sync or keep their Lease, or stopped on an error. Once they ran,
// it fails the flow's current step at once (see step.Fail).
type EngineError struct {
	Role   handshake.Role
	Server string
	Err    error
}

func (e *EngineError) Error() string {
	return fmt.Sprintf("in-process %s controllers on %s: %v", e.Role, e.Server, e.Err)
}

func (e *EngineError) Unwrap() error { return e.Err }

// ensure makes sure something serves role on c: real Liqo, the in-cluster
// controller, or reconcilers run here for the flow's duration.
func (e *engines) ensure(ctx context.Context, c *kube.Cluster, role handshake.Role, o EngineOptions, sink handshake.Sink, scope handshake.Scope) (Engine, error) {
	engine, err := chooseEngine(ctx, c, role, o)
	if err != nil {
		return "", err
	}
	return engine, e.serve(ctx, c, role, engine, o, sink, scope)
}

// chooseEngine finds what serves role on c, writing nothing: real Liqo, the
// in-cluster controller, or, when neither does, reconcilers run
// in-process, which the kubeconfig must then be allowed to run (they need
// what the in-cluster controller's RBAC grants).
func chooseEngine(ctx context.Context, c *kube.Cluster, role handshake.Role, o EngineOptions) (Engine, error) {
	engine, err := serving.Detect(ctx, c)
	if err != nil || engine != "" {
		return engine, err
	}
	if o.NoInProcess {
		return "", fmt.Errorf("no controller serves the %s side of %s and in-process controllers are disabled: install one with `liqo-auth-tui install controller`", role, c.Server)
	}
	needs, err := c.ControllerAccess()
	if err != nil {
		return "", err
	}
	if err := c.CheckAccess(ctx, needs); err != nil {
		return "", fmt.Errorf("%w: no controller serves the %s side of %s and running one in-process needs it: install one there with `liqo-auth-tui install controller`", err, role, c.Server)
	}
	return EngineInProcess, nil
}

// serve starts the in-process reconcilers when engine is EngineInProcess,
// and reports who serves the side.
func (e *engines) serve(ctx context.Context, c *kube.Cluster, role handshake.Role, engine Engine, o EngineOptions, sink handshake.Sink, scope handshake.Scope) error {
	p, err := e.begin(ctx, c, role, engine, o)
	if err != nil {
		return err
	}
	return p.finish(ctx, sink, scope)
}

// serveInOrder serves the consumer's side, then the provider's: the
// provider's Lease is competed for only once the consumer's is held (two
// runs on one pair at once then queue on the consumer's Lease, where taking
// both at once could leave each holding one side's Lease and waiting for
// the other's until both time out), but both sides' caches sync meanwhile
// (Manager.Warm): only the workers wait for a Lease.
func (e *engines) serveInOrder(ctx context.Context, consumer, provider *kube.Cluster, consumerEngine, providerEngine Engine, o EngineOptions, sink handshake.Sink) error {
	// Both sides' caches start syncing now (reading only); the Leases are
	// then taken in order.
	first, err := e.prepare(ctx, consumer, handshake.RoleConsumer, consumerEngine, o)
	if err != nil {
		return step.Scoped(handshake.Local, err)
	}
	second, err := e.prepare(ctx, provider, handshake.RoleProvider, providerEngine, o)
	if err != nil {
		first.abandon()
		return step.Scoped(handshake.Remote, err)
	}
	if err := first.begin(ctx); err != nil {
		second.abandon()
		return step.Scoped(handshake.Local, err)
	}
	if !first.leading(ctx) {
		second.abandon()
		return step.Scoped(handshake.Local, first.finish(ctx, sink, handshake.Local))
	}
	if err := second.begin(ctx); err != nil {
		first.abandon()
		return step.Scoped(handshake.Remote, err)
	}
	if err := first.finish(ctx, sink, handshake.Local); err != nil {
		second.abandon() // the failure is known: no wait for the other side
		return step.Scoped(handshake.Local, err)
	}
	return step.Scoped(handshake.Remote, second.finish(ctx, sink, handshake.Remote))
}

// pendingServe is a side whose in-process controllers (if any) are starting.
type pendingServe struct {
	e        *engines
	c        *kube.Cluster
	role     handshake.Role
	engine   Engine
	m        *controller.Manager  // nil: nothing runs in-process
	starting *controller.Starting // nil: not begun, or nothing runs in-process
	lease    string
	slot     int
}

// begin starts the in-process reconcilers when engine is EngineInProcess;
// finish waits for them.
func (e *engines) begin(ctx context.Context, c *kube.Cluster, role handshake.Role, engine Engine, o EngineOptions) (*pendingServe, error) {
	p, err := e.prepare(ctx, c, role, engine, o)
	if err != nil {
		return nil, err
	}
	return p, p.begin(ctx)
}

// prepare builds the in-process reconcilers when engine is EngineInProcess
// and has their caches start syncing; begin then competes for the Lease.
func (e *engines) prepare(ctx context.Context, c *kube.Cluster, role handshake.Role, engine Engine, o EngineOptions) (*pendingServe, error) {
	p := &pendingServe{e: e, c: c, role: role, engine: engine}
	if engine != EngineInProcess {
		return p, nil
	}
	var err error
	p.m, err = controller.New(c, controller.Options{
		Provider: role == handshake.RoleProvider, Consumer: role == handshake.RoleConsumer,
		APIServerOverride: o.APIServerOverride, CAOverride: o.CAOverride, TrustedCA: o.TrustedCA,
		// Liqo's rule, as in a Pod: what the consumer's Pods reach is a
		// control-plane Node's address, not the admin's kubeconfig server
		// (127.0.0.1 on kind); a bare control plane has no Node.
		AdvertiseNodeAddress: true, AdvertiseKubeconfigWithoutNode: true,
		HandshakeOnly: e.handshakeOnly,
		// Once the in-cluster controller's Pods run (install controller,
		// the wizard's I), it serves from then on, with no gap between.
		YieldToController: true,
	})
	if err != nil {
		return nil, err
	}
	p.m.Warm(ctx)
	return p, nil
}

// begin competes for the side's Lease, under which the prepared
// reconcilers run.
func (p *pendingServe) begin(ctx context.Context) error {
	if p.m == nil {
		return nil
	}
	// Bounded: a step deadline sooner than that ends the start a little
	// before it, so that the failure says what was not ready.
	timeout := inProcessStartTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = max(time.Until(d)-100*time.Millisecond, time.Millisecond)
	}
	p.lease = p.c.Server + " " + p.c.Namespace + "/" + InProcessLeaseName(p.role)
	p.slot = leaseSlots.take(p.lease)
	host, _ := os.Hostname()
	identity := fmt.Sprintf("%s-%d-%d", host, os.Getpid(), p.slot)
	// The controllers outlive the step that starts them (ctx bounds only
	// the start), not the flow: stop ends them.
	var err error
	if p.starting, err = controller.BeginWithLease(ctx, p.c, InProcessLeaseName(p.role), identity, p.m, timeout); err != nil {
		leaseSlots.free(p.lease, p.slot)
		p.m.Cool()
		return &EngineError{Role: p.role, Server: p.c.Server, Err: err}
	}
	return nil
}

// leading waits until the side's Lease is held (true at once when nothing
// runs in-process); false: finish tells why not.
func (p *pendingServe) leading(ctx context.Context) bool {
	return p.starting == nil || p.starting.Leading(ctx)
}

// abandon stops a start that will not be finished.
func (p *pendingServe) abandon() {
	if p.starting == nil {
		if p.m != nil {
			p.m.Cool() // prepared, never begun
		}
		return
	}
	p.starting.Stop()
	leaseSlots.free(p.lease, p.slot)
}

// finish waits for the side's in-process controllers to sync, and reports
// who serves the side.
func (p *pendingServe) finish(ctx context.Context, sink handshake.Sink, scope handshake.Scope) error {
	if p.starting != nil {
		if err := p.e.register(ctx, p, sink, scope); err != nil {
			return err
		}
	}
	if sink != nil {
		sink(handshake.Event{Kind: handshake.Note, Scope: scope, Message: fmt.Sprintf("%s side served by %s", p.role, p.engine)})
	}
	return nil
}

// register waits for a starting side to sync and keeps it until stop.
func (e *engines) register(ctx context.Context, p *pendingServe, sink handshake.Sink, scope handshake.Scope) error {
	started, err := p.starting.Wait(ctx)
	if err != nil {
		leaseSlots.free(p.lease, p.slot) // Wait stopped what it started
		if ctx.Err() != nil && context.Cause(ctx) != nil {
			return context.Cause(ctx)
		}
		return &EngineError{Role: p.role, Server: p.c.Server, Err: err}
	}
	e.mu.Lock()
	e.runs = append(e.runs, started)
	e.slots = append(e.slots, leaseSlot{p.lease, p.slot})
	e.mu.Unlock()
	// A later failure (the Lease lost, the controllers stopped on an error)
	// fails the flow's current step at once, with the cause; a hand-over to
	// the in-cluster controller is said, and the flow goes on.
	go func() {
		<-started.Done()
		switch err := started.Err(); {
		case errors.Is(err, controller.ErrHandedOver):
			if sink != nil {
				sink(handshake.Event{Kind: handshake.Note, Scope: scope,
					Message: fmt.Sprintf("%s side handed over to %s: its Pods run", p.role, EngineController)})
			}
			if e.handedOver != nil {
				e.handedOver(p.role)
			}
		case err != nil && step.CanFail(ctx):
			step.Fail(ctx, &EngineError{Role: p.role, Server: p.c.Server, Err: err})
		}
	}()
	return nil
}

// stop ends the in-process controllers and waits for them (releasing the Lease).
func (e *engines) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	// Both sides at once: each waits for its workers and its Lease release.
	var g sync.WaitGroup
	for _, r := range e.runs {
		g.Go(r.Stop)
	}
	g.Wait()
	for _, l := range e.slots {
		leaseSlots.free(l.lease, l.n)
	}
	e.runs, e.slots = nil, nil
}

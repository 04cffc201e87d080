package controller

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// EventSource is the component name on the Events this package emits.
const EventSource = "liqo-auth-controller"

// flushKind marks the internal event that flush waits for; it never
// reaches the API server.
const flushKind = "liqo-auth-tui.flush"

// maxEventHold bounds how long a Normal Event waits for an idle moment,
// and maxHeldEvents how many wait: beyond, they are summed up at once (see
// summarize), and only when that is not enough are the oldest dropped.
const (
	maxEventHold  = 30 * time.Second
	maxHeldEvents = 4096
)

// eventScheme resolves the kind of the objects Events are about.
var eventScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := authv1beta1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// events records Events for humans (and for the flows, which fail a step
// as soon as a Warning shows up on its object). Warnings are written at
// once; Normal Events, informational, wait while syncs are under way (see
// flushingSink), so that a burst of handshakes does not also pay for a
// burst of Event writes.
type events struct {
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
	sink        *flushingSink
	activity    *activity // the syncs the Normal Events wait for
}

func newEvents(c *kube.Cluster) *events {
	return newEventsTo(&typedcorev1.EventSinkImpl{Interface: c.Kube.CoreV1().Events("")}, &activity{}, maxEventHold)
}

// newEventsTo writes to to; with act, Normal Events wait for act to be idle
// for at most hold.
func newEventsTo(to record.EventSink, act *activity, hold time.Duration) *events {
	// The spam filter lets 25 Events per object and type through, then one
	// every 5 minutes. Keyed by reason too, a Tenant retried for a missing
	// nonce cannot use up the budget of the Warning that says what is
	// really wrong with it later.
	b := record.NewBroadcaster(record.WithCorrelatorOptions(record.CorrelatorOptions{SpamKeyFunc: spamKey}))
	sink := &flushingSink{EventSink: to}
	if act != nil {
		sink.holdFor(act, hold)
	}
	b.StartRecordingToSink(sink)
	return &events{broadcaster: b, recorder: b.NewRecorder(eventScheme, corev1.EventSource{Component: EventSource}), sink: sink, activity: act}
}

func spamKey(e *corev1.Event) string {
	o := e.InvolvedObject
	return strings.Join([]string{e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion, e.Type, e.Reason}, "/")
}

// normal and warning emit an Event on obj unless the run is stopping: a
// request cut short by shutdown is not something to warn anybody about.
func (e *events) normal(ctx context.Context, obj runtime.Object, reason, message string) {
	if ctx.Err() == nil {
		e.recorder.Event(obj, corev1.EventTypeNormal, reason, message)
	}
}

func (e *events) warning(ctx context.Context, obj runtime.Object, reason, message string) {
	if ctx.Err() == nil {
		e.recorder.Event(obj, corev1.EventTypeWarning, reason, message)
	}
}

// close writes out the queued Events (for at most timeout) and stops the
// broadcaster. The broadcaster's own Shutdown drops what its writer has not
// sent yet, so a marker is queued behind the last Event and awaited first:
// one writer sends Events in order, so the marker arriving means all did.
func (e *events) close(timeout time.Duration) {
	done := e.sink.expect()
	e.recorder.Event(done.marker, corev1.EventTypeNormal, "Flush", "flush")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	select {
	case <-done.ch:
	case <-ctx.Done():
	}
	e.sink.stopHolding(ctx.Done())
	e.broadcaster.Shutdown()
}

// flushingSink writes Events to the API server, except flush markers,
// which it answers once everything before them is written. With holdFor,
// Normal Events created while syncs are under way are held and written by
// writeWhenIdle when the syncs are over, or after hold.
type flushingSink struct {
	record.EventSink
	mu      sync.Mutex
	waiting map[string]chan struct{}
	seq     atomic.Int64

	activity  *activity
	hold      time.Duration
	held      []heldEvent
	heldSince time.Time
	wake      chan struct{} // held Events to look at
	stop      chan struct{}
	stopped   chan struct{}
}

type flushMarker struct {
	marker *corev1.ObjectReference
	ch     chan struct{}
}

func (s *flushingSink) expect() flushMarker {
	name := "flush-" + strconv.FormatInt(s.seq.Add(1), 10)
	ch := make(chan struct{})
	s.mu.Lock()
	if s.waiting == nil {
		s.waiting = map[string]chan struct{}{}
	}
	s.waiting[name] = ch
	s.mu.Unlock()
	return flushMarker{marker: &corev1.ObjectReference{Kind: flushKind, Name: name, Namespace: metav1.NamespaceDefault}, ch: ch}
}

func (s *flushingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	if e.InvolvedObject.Kind != flushKind {
		if e.Type == corev1.EventTypeNormal && !s.activity.idle() {
			s.hold1(e)
			return e, nil
		}
		return s.EventSink.Create(e)
	}
	s.writeHeld()
	s.mu.Lock()
	ch := s.waiting[e.InvolvedObject.Name]
	delete(s.waiting, e.InvolvedObject.Name)
	s.mu.Unlock()
	if ch != nil {
		close(ch)
	}
	return e, nil
}

// holdFor starts holding Normal Events while act is busy, for at most hold.
func (s *flushingSink) holdFor(act *activity, hold time.Duration) {
	s.activity, s.hold = act, hold
	s.wake, s.stop, s.stopped = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	act.notify(s.poke)
	go s.writeWhenIdle()
}

func (s *flushingSink) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *flushingSink) hold1(e *corev1.Event) {
	s.mu.Lock()
	if len(s.held) == 0 {
		s.heldSince = time.Now()
	}
	if len(s.held) >= maxHeldEvents {
		s.held = summarize(s.held)
	}
	if len(s.held) >= maxHeldEvents {
		s.held = s.held[1:]
	}
	s.held = append(s.held, heldEvent{Event: e})
	s.mu.Unlock()
	s.poke() // after the append: an idle moment that came first is seen
}

// writeWhenIdle writes the held Events once no sync is under way, or once
// the oldest waited for hold.
func (s *flushingSink) writeWhenIdle() {
	defer close(s.stopped)
	timer := time.NewTimer(s.hold)
	defer timer.Stop()
	for {
		var timeout <-chan time.Time
		s.mu.Lock()
		n, since := len(s.held), s.heldSince
		s.mu.Unlock()
		if n > 0 {
			waited := time.Since(since)
			if s.activity.idle() || waited >= s.hold {
				s.writeHeld()
				continue
			}
			timer.Reset(s.hold - waited)
			timeout = timer.C
		}
		select {
		case <-s.wake:
		case <-timeout:
		case <-s.stop:
			return
		}
	}
}

// writeHeld writes the Events held so far, a burst of one kind summed up
// in one. Failing to is logged only, as the broadcaster does after its
// retries.
func (s *flushingSink) writeHeld() {
	s.mu.Lock()
	batch := summarize(s.held)
	s.held = nil
	s.mu.Unlock()
	for _, h := range batch {
		e := h.toWrite()
		if _, err := s.EventSink.Create(e); err != nil {
			klog.V(2).Info("Writing an Event failed", "reason", e.Reason, "object", e.InvolvedObject.Name, "err", err.Error())
		}
	}
}

// stopHolding ends writeWhenIdle, after the batch it is writing (bounded
// by deadline).
func (s *flushingSink) stopHolding(deadline <-chan struct{}) {
	if s.stop == nil {
		return
	}
	close(s.stop)
	select {
	case <-s.stopped:
	case <-deadline:
	}
}

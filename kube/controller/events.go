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

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// EventSource is the component name on the Events this package emits.
const EventSource = "liqo-auth-controller"

// flushKind marks the internal event that flush waits for; it never
// reaches the API server.
const flushKind = "liqo-auth-tui.flush"

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
// as soon as a Warning shows up on its object).
type events struct {
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
	sink        *flushingSink
}

func newEvents(c *kube.Cluster) *events {
	return newEventsTo(&typedcorev1.EventSinkImpl{Interface: c.Kube.CoreV1().Events("")})
}

func newEventsTo(to record.EventSink) *events {
	// The spam filter lets 25 Events per object and type through, then one
	// every 5 minutes. Keyed by reason too, a Tenant retried for a missing
	// nonce cannot use up the budget of the Warning that says what is
	// really wrong with it later.
	b := record.NewBroadcaster(record.WithCorrelatorOptions(record.CorrelatorOptions{SpamKeyFunc: spamKey}))
	sink := &flushingSink{EventSink: to}
	b.StartRecordingToSink(sink)
	return &events{broadcaster: b, recorder: b.NewRecorder(eventScheme, corev1.EventSource{Component: EventSource}), sink: sink}
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
	select {
	case <-done.ch:
	case <-time.After(timeout):
	}
	e.broadcaster.Shutdown()
}

// flushingSink writes Events to the API server, except flush markers.
type flushingSink struct {
	record.EventSink
	mu      sync.Mutex
	waiting map[string]chan struct{}
	seq     atomic.Int64
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
		return s.EventSink.Create(e)
	}
	s.mu.Lock()
	ch := s.waiting[e.InvolvedObject.Name]
	delete(s.waiting, e.InvolvedObject.Name)
	s.mu.Unlock()
	if ch != nil {
		close(ch)
	}
	return e, nil
}

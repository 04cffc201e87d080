package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// memorySink stores Events, slowly, like a busy API server.
type memorySink struct {
	mu     sync.Mutex
	events []*corev1.Event
}

func (s *memorySink) Create(e *corev1.Event) (*corev1.Event, error) {
	time.Sleep(time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return e, nil
}
func (s *memorySink) Update(e *corev1.Event) (*corev1.Event, error)          { return e, nil }
func (s *memorySink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) { return e, nil }

// Stopping writes out every Event queued before, and only those.
func TestEventsAreFlushedOnClose(t *testing.T) {
	sink := &memorySink{}
	ev := newEventsTo(sink, nil, 0)
	ctx := context.Background()
	for i := range 50 {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s-%d", i), Namespace: "ns"}}
		ev.warning(ctx, s, ReasonWrongNamespace, "wrong")
	}
	ev.close(10 * time.Second)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	assert.Len(t, sink.events, 50, "no flush marker, no Event lost")
	assert.Equal(t, "Secret", sink.events[0].InvolvedObject.Kind)
	assert.Equal(t, EventSource, sink.events[0].Source.Component)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	ev2 := newEventsTo(sink, nil, 0)
	ev2.warning(cancelled, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "late", Namespace: "ns"}}, ReasonWrongNamespace, "dropped")
	sink.mu.Unlock()
	ev2.close(time.Second)
	sink.mu.Lock()
	assert.Len(t, sink.events, 50, "no Event about work cut short by shutdown")
}

func (s *memorySink) reasons() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		out = append(out, e.Reason)
	}
	return out
}

// While syncs are under way, Normal Events wait and Warnings do not; the
// end of the last sync writes them, and so do the hold limit and close.
func TestNormalEventsWaitForIdle(t *testing.T) {
	ctx := context.Background()
	secret := func(name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	}
	written := func(sink *memorySink, want ...string) func() bool {
		return func() bool { return assert.ObjectsAreEqual(want, sink.reasons()) }
	}

	sink, act := &memorySink{}, &activity{}
	ev := newEventsTo(sink, act, time.Hour)
	act.begin()
	act.begin()
	ev.normal(ctx, secret("a"), ReasonReconciled, "done")
	ev.warning(ctx, secret("b"), ReasonWrongNamespace, "wrong")
	assert.Eventually(t, written(sink, ReasonWrongNamespace), 5*time.Second, 5*time.Millisecond, "the Warning goes at once")
	act.end()
	assert.Never(t, func() bool { return len(sink.reasons()) > 1 }, 100*time.Millisecond, 5*time.Millisecond, "one sync is still under way")
	act.end()
	assert.Eventually(t, written(sink, ReasonWrongNamespace, ReasonReconciled), 5*time.Second, 5*time.Millisecond, "idle: written")
	ev.close(5 * time.Second)

	// A controller that is never idle still writes them after the hold.
	sink, act = &memorySink{}, &activity{}
	ev = newEventsTo(sink, act, 50*time.Millisecond)
	act.begin()
	ev.normal(ctx, secret("c"), ReasonReconciled, "done")
	assert.Eventually(t, written(sink, ReasonReconciled), 5*time.Second, 5*time.Millisecond, "written after the hold")
	ev.close(5 * time.Second)

	// Closing writes what waits.
	sink, act = &memorySink{}, &activity{}
	ev = newEventsTo(sink, act, time.Hour)
	act.begin()
	for i := range 20 {
		ev.normal(ctx, secret(fmt.Sprintf("d-%d", i)), ReasonReconciled, "done")
	}
	ev.close(5 * time.Second)
	assert.Len(t, sink.reasons(), 20)
}

// blockedSink never answers, like an API server gone away.
type blockedSink struct{ memorySink }

func (s *blockedSink) Create(e *corev1.Event) (*corev1.Event, error) { select {} }

// Closing is bounded by its timeout even when the held Events cannot be
// written.
func TestCloseIsBoundedWhenEventsCannotBeWritten(t *testing.T) {
	act := &activity{}
	ev := newEventsTo(&blockedSink{}, act, time.Hour)
	act.begin()
	ev.normal(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}}, ReasonReconciled, "done")
	act.end() // the writer starts, and blocks
	closed := make(chan struct{})
	go func() { ev.close(200 * time.Millisecond); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("close did not return")
	}
}

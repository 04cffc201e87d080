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
	ev := newEventsTo(sink)
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
	ev2 := newEventsTo(sink)
	ev2.warning(cancelled, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "late", Namespace: "ns"}}, ReasonWrongNamespace, "dropped")
	sink.mu.Unlock()
	ev2.close(time.Second)
	sink.mu.Lock()
	assert.Len(t, sink.events, 50, "no Event about work cut short by shutdown")
}

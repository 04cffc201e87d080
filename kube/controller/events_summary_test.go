package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A burst of Normal Events of one reason is written as one Event saying
// how many it stands for; small groups, other reasons and Warnings are
// written one by one.
func TestBurstOfNormalEventsIsSummedUp(t *testing.T) {
	ctx := context.Background()
	secret := func(name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	}
	sink, act := &memorySink{}, &activity{}
	ev := newEventsTo(sink, act, time.Hour)
	act.begin()
	for i := range 1000 {
		ev.normal(ctx, secret(fmt.Sprintf("s-%04d", i)), ReasonReconciled, "Secret reconciled")
	}
	for i := range summarizeAbove {
		ev.normal(ctx, secret(fmt.Sprintf("n-%02d", i)), ReasonNonceGenerated, "Nonce generated")
	}
	ev.warning(ctx, secret("w"), ReasonWrongNamespace, "wrong")
	ev.close(10 * time.Second)

	sink.mu.Lock()
	defer sink.mu.Unlock()
	require.Len(t, sink.events, 1+1+summarizeAbove, "one summary, the small group one by one, the Warning")
	byReason := map[string][]*corev1.Event{}
	for _, e := range sink.events {
		byReason[e.Reason] = append(byReason[e.Reason], e)
	}
	require.Len(t, byReason[ReasonReconciled], 1)
	summary := byReason[ReasonReconciled][0]
	assert.Equal(t, "s-0000", summary.InvolvedObject.Name, "on the first object")
	assert.Equal(t, "Secret reconciled; so were 999 other Secrets at the same time (one Event for all of them: their statuses tell each)", summary.Message)
	assert.Len(t, byReason[ReasonNonceGenerated], summarizeAbove)
	assert.Equal(t, "Nonce generated", byReason[ReasonNonceGenerated][0].Message)
	assert.Len(t, byReason[ReasonWrongNamespace], 1)
}

// More Events than may be held are summed up as they come, not dropped.
func TestHeldEventsBeyondTheLimitAreSummedUpNotDropped(t *testing.T) {
	s := &flushingSink{}
	for i := range maxHeldEvents + 500 {
		s.hold1(&corev1.Event{Reason: ReasonReconciled, Message: "Tenant reconciled", Type: corev1.EventTypeNormal,
			InvolvedObject: corev1.ObjectReference{Kind: "Tenant", Name: fmt.Sprintf("t-%05d", i)}})
	}
	got := summarize(s.held)
	require.Len(t, got, 1)
	assert.Equal(t, maxHeldEvents+500-1, got[0].others)
	assert.Equal(t, "t-00000", got[0].InvolvedObject.Name)
	assert.Equal(t, got, summarize(got), "summing up twice changes nothing")
}

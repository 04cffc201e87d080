package doctor

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The Events a check reads to say why an object was left undone.

// latestWarning is the last Event with reason about the object (its UID,
// so not one of an object of the same name before it); nil when none.
func (s *side) latestWarning(ctx context.Context, kind, namespace, name string, uid types.UID, reason string) *corev1.Event {
	return s.latestEvents(ctx, namespace, fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "reason": reason})[uid]
}

// latestEvents lists the Events of a namespace that match sel, and keeps
// the last one of each object (by UID). An error reads as none: the check
// then says what the objects alone tell.
func (s *side) latestEvents(ctx context.Context, namespace string, sel fields.Set) map[types.UID]*corev1.Event {
	if !s.read() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	l, err := s.cluster.Events(ctx, namespace, sel.String())
	if err != nil {
		return nil
	}
	latest := map[types.UID]*corev1.Event{}
	for i := range l.Items {
		e := &l.Items[i]
		if old := latest[e.InvolvedObject.UID]; old == nil || kube.EventTime(e).After(kube.EventTime(old)) {
			latest[e.InvolvedObject.UID] = e
		}
	}
	return latest
}

// refusalText is a ReplicationForbidden Warning's message without its
// last sentence, on when the replicator tries again (stale once read).
func refusalText(e *corev1.Event) string {
	msg, _, _ := strings.Cut(e.Message, " Tried again when")
	return msg
}

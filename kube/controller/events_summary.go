package controller

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// summarizeAbove is how many held Normal Events of one reason and kind are
// written one by one: beyond it (a burst of Tenants applied at once) they
// are written as one Event, on the first object, saying how many others it
// stands for. A human reads one line instead of thousands, the API server
// takes one write instead of one per object, and each object's status
// still tells its own state. Warnings are never held, hence never summed.
const summarizeAbove = 32

// heldEvent is a Normal Event waiting for an idle moment; others counts the
// Events of the same reason and kind it stands for.
type heldEvent struct {
	*corev1.Event
	others int
}

type summaryKey struct{ reason, kind string }

// summarize collapses each group of more than summarizeAbove held Events
// of the same reason and kind into its first Event (keeping the order of
// first appearance); smaller groups stay as they are. Applied again to its
// own result it changes nothing but what new Events add.
func summarize(held []heldEvent) []heldEvent {
	counts := map[summaryKey]int{}
	for _, e := range held {
		counts[summaryKey{e.Reason, e.InvolvedObject.Kind}] += 1 + e.others
	}
	out := make([]heldEvent, 0, len(held))
	first := map[summaryKey]int{} // index in out of a collapsed group
	for _, e := range held {
		k := summaryKey{e.Reason, e.InvolvedObject.Kind}
		if counts[k] <= summarizeAbove {
			out = append(out, e)
			continue
		}
		if i, ok := first[k]; ok {
			out[i].others += 1 + e.others
			continue
		}
		first[k] = len(out)
		out = append(out, e)
	}
	return out
}

// toWrite is the Event as it goes to the API server.
func (e heldEvent) toWrite() *corev1.Event {
	if e.others == 0 {
		return e.Event
	}
	w := e.DeepCopy()
	w.Message = fmt.Sprintf("%s; so were %d other %ss at the same time (one Event for all of them: their statuses tell each)",
		e.Message, e.others, e.InvolvedObject.Kind)
	return w
}

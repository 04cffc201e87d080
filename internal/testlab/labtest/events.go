package labtest

import (
	"strings"
	"sync"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// EventLog is a handshake.Sink that keeps every event a flow tells, from
// any goroutine.
type EventLog struct {
	mu     sync.Mutex
	events []handshake.Event
}

// Sink records ev.
func (l *EventLog) Sink(ev handshake.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

// Events returns what was told so far, in order.
func (l *EventLog) Events() []handshake.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]handshake.Event(nil), l.events...)
}

// Said tells whether an event's message contains part.
func (l *EventLog) Said(part string) bool {
	for _, ev := range l.Events() {
		if strings.Contains(ev.Message, part) {
			return true
		}
	}
	return false
}
